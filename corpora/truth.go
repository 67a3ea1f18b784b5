package corpora

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"
)

// truthFiles holds the hand-labeled ground truth, one file per default
// corpus page, outside the pages themselves.
//
//go:embed truth/*.json
var truthFiles embed.FS

// LocatorStep separates the steps of a ground-truth locator: "a >>> b"
// finds b inside the open shadow root, or the frame document, of the
// element a finds.
const LocatorStep = " >>> "

// Truth is the hand-labeled ground truth of one corpus page: every element
// a person can act on in the state the page is captured in (after load and
// its scripts, nothing clicked), on the whole page, labeled by reading the
// page's HTML and scripts and looking at it in Chromium.
type Truth struct {
	// Page is the page's path, as in [DefaultPaths].
	Page string `json:"page"`
	// Note says what was left out and why.
	Note     string         `json:"note"`
	Elements []TruthElement `json:"elements"`
}

// TruthElement is one entry of a ground truth: a locator and how many
// elements it finds.
type TruthElement struct {
	// Locator is a CSS selector, resolved in the page's document; its
	// steps ([LocatorStep]) enter shadow roots and frames.
	Locator string `json:"locator"`
	// Count is the number of elements the locator finds, all of which are
	// in the truth; 0 means 1.
	Count int `json:"count,omitempty"`
	// What describes the elements for a person.
	What string `json:"what"`
}

// Want returns how many elements the locator must find.
func (e TruthElement) Want() int {
	if e.Count == 0 {
		return 1
	}
	return e.Count
}

// Size returns the number of elements in the truth.
func (t *Truth) Size() int {
	n := 0
	for _, e := range t.Elements {
		n += e.Want()
	}
	return n
}

// ErrNoTruth is returned for a page without ground truth.
var ErrNoTruth = errors.New("no ground truth")

// TruthFor returns the ground truth of a default corpus page, by its path
// ("/login.html").
func TruthFor(pagePath string) (*Truth, error) {
	name := strings.TrimSuffix(path.Base(pagePath), path.Ext(pagePath))
	data, err := truthFiles.ReadFile("truth/" + name + ".json")
	if err != nil {
		return nil, fmt.Errorf("%w for %s", ErrNoTruth, pagePath)
	}
	t := &Truth{}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(t); err != nil {
		return nil, fmt.Errorf("ground truth of %s: %w", pagePath, err)
	}
	if err := t.check(pagePath); err != nil {
		return nil, fmt.Errorf("ground truth of %s: %w", pagePath, err)
	}
	return t, nil
}

func (t *Truth) check(pagePath string) error {
	if t.Page != pagePath {
		return fmt.Errorf("file is for page %q", t.Page)
	}
	if len(t.Elements) == 0 {
		return errors.New("no elements")
	}
	seen := map[string]bool{}
	for i, e := range t.Elements {
		switch {
		case strings.TrimSpace(e.Locator) == "":
			return fmt.Errorf("element %d: empty locator", i)
		case e.Count < 0:
			return fmt.Errorf("element %d (%s): count %d", i, e.Locator, e.Count)
		case strings.TrimSpace(e.What) == "":
			return fmt.Errorf("element %d (%s): no description", i, e.Locator)
		case seen[e.Locator]:
			return fmt.Errorf("element %d: locator %q listed twice", i, e.Locator)
		}
		seen[e.Locator] = true
	}
	return nil
}
