// Package overlay draws an action space's IDs onto a screenshot of the
// page: each action's bounding box as a coloured outline and its ID ("B1",
// "I2") in a filled tag at the box's top-left corner (just above it for
// controls narrower than the tag), one colour per ID letter. It is the image-side counterpart of a highlight overlay that
// would be injected into the page, drawn afterwards in Go so that the page
// itself is never modified.
//
// Boxes come in page coordinates (CSS pixels from the document's top-left
// corner, as the capture records them); [Draw] moves them into the
// screenshot by subtracting the scroll offset at capture time and scaling
// by the device pixel ratio. Boxes partly off the image are clipped; boxes
// wholly off it (elements selected by a viewport expansion but not on the
// screen) are not drawn. The package is pure: no I/O, no globals.
package overlay
