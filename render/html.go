package render

// HTML renders the html format: the page's HTML as serialized from the
// live DOM at capture time, whole (it has no window: an agent that reads
// HTML reads all of it), with no handles and so no recall.
func HTML(html string) FormatSpace {
	return FormatSpace{Text: html}
}
