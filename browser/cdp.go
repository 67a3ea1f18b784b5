package browser

// dig walks nested JSON objects by key; nil when a step is missing.
//
// It is the browser adapter's helper (pipeline/playwright.go has the same
// one): when the adapter moves into this package, this file goes.
func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}
