package pipeline

// Log keys, one place for all of them.
const (
	logWorker    = "worker"
	logPageID    = "page_id"
	logFormat    = "format"
	logURL       = "url"
	logErrorKind = "error_kind"
	logError     = "err"
	logAttempt   = "attempt"
	logStatus    = "status"
	logSpaces    = "spaces"
	logSkipped   = "skipped"
	logStep      = "step"
)
