package browser

// Log keys, one place for all of the adapter's.
const (
	logURL         = "url"
	logError       = "err"
	logAttempt     = "attempt"
	logDialogType  = "dialog_type"
	logPopupURL    = "popup_url"
	logSettled     = "settled"
	logMutations   = "mutations"
	logSettleTime  = "settle_time"
	logBrowserPath = "chromium"
	logBrowserVer  = "chromium_version"
	logFrame       = "frame"
	logSkipped     = "skipped"
	logEndpoint    = "endpoint"
	logUp          = "up"
)
