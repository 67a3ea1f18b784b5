package dom

import "strings"

// Letters of the ID prefixes, one per role family (docs/perception.md, "Roles and letters").
const (
	LetterLink   = 'L'
	LetterButton = 'B'
	LetterInput  = 'I'
	LetterImage  = 'F'
	LetterOption = 'O'
	LetterOther  = 'M'
)

// Letters lists the ID letters in the order datasets report them.
const Letters = "LBIFOM"

// roleLetter is the one role table: ARIA role → ID letter. Roles not listed
// are interactive only through other signals and get LetterOther.
var roleLetter = map[string]byte{
	"link":             LetterLink,
	"button":           LetterButton,
	"tab":              LetterButton,
	"menuitem":         LetterButton,
	"menuitemcheckbox": LetterButton,
	"menuitemradio":    LetterButton,
	"switch":           LetterButton,
	"checkbox":         LetterButton,
	"radio":            LetterButton,
	"treeitem":         LetterButton,
	"textbox":          LetterInput,
	"searchbox":        LetterInput,
	"combobox":         LetterInput,
	"listbox":          LetterInput,
	"slider":           LetterInput,
	"spinbutton":       LetterInput,
	"img":              LetterImage,
	"image":            LetterImage,
	"figure":           LetterImage,
	"option":           LetterOption,
}

// knownRoles are the ARIA roles that may be taken from a role attribute:
// the table above plus the roles that map to LetterOther.
var knownRoles = map[string]bool{
	"gridcell": true, "row": true, "cell": true, "group": true, "dialog": true,
	"alertdialog": true, "menu": true, "menubar": true, "tablist": true,
	"tabpanel": true, "tree": true, "grid": true, "navigation": true,
	"presentation": true, "none": true, "heading": true, "list": true,
	"listitem": true, "region": true, "banner": true, "main": true,
	"contentinfo": true, "form": true, "search": true, "article": true,
	"toolbar": true, "progressbar": true, "scrollbar": true, "separator": true,
	"generic": true, "status": true, "alert": true, "log": true, "tooltip": true,
}

// LetterOf returns the ID letter for a role.
func LetterOf(role string) byte {
	if l, ok := roleLetter[role]; ok {
		return l
	}
	return LetterOther
}

// Role returns the element's role: the first token of its role attribute
// that is a known ARIA role, otherwise the implicit role of its tag (and
// input type). It returns "" for elements without one.
func (n *Node) Role() string {
	if v, ok := n.Attr("role"); ok {
		for _, tok := range strings.Fields(strings.ToLower(v)) {
			if _, ok := roleLetter[tok]; ok || knownRoles[tok] {
				return tok
			}
		}
	}
	return implicitRole(n)
}

func implicitRole(n *Node) string {
	switch n.Tag {
	case "a", "area":
		if _, ok := n.Attr("href"); ok {
			return "link"
		}
	case "button", "summary":
		return "button"
	case "select":
		multiple := false
		if _, ok := n.Attr("multiple"); ok {
			multiple = true
		}
		if size, ok := n.Attr("size"); ok && size != "" && size != "0" && size != "1" {
			multiple = true
		}
		if multiple {
			return "listbox"
		}
		return "combobox"
	case "textarea":
		return "textbox"
	case "option":
		return "option"
	case "img":
		return "img"
	case "figure":
		return "figure"
	case "details":
		return "group"
	case "input":
		t, _ := n.Attr("type")
		switch strings.ToLower(t) {
		case "button", "submit", "reset", "image", "file", "color":
			return "button"
		case "checkbox":
			return "checkbox"
		case "radio":
			return "radio"
		case "range":
			return "slider"
		case "number":
			return "spinbutton"
		case "search":
			if _, ok := n.Attr("list"); ok {
				return "combobox"
			}
			return "searchbox"
		default:
			if _, ok := n.Attr("list"); ok {
				return "combobox"
			}
			return "textbox"
		}
	}
	if n.hasSignal("editable") {
		return "textbox"
	}
	return ""
}

func (n *Node) hasSignal(s string) bool {
	for _, x := range n.Signals {
		if x == s {
			return true
		}
	}
	return false
}

// distinct reports whether the element is a control of its own, so that it
// gets an ID even inside another interactive element: a form control, a
// button or link, or an element with its own interactive role, handler or
// editable content. Cursor, tabindex, popup and label signals alone are not
// enough there.
func (n *Node) distinct() bool {
	for _, s := range n.Signals {
		switch s {
		case "tag", "role", "handler", "editable":
			return true
		}
	}
	return false
}
