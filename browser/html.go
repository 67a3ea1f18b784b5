package browser

import (
	"context"
	"fmt"
	"strings"
)

// htmlGlobal is where serializeScript leaves the serialized HTML in its
// isolated world, for readHTML to take in chunks.
const htmlGlobal = "__actionspaceHTML"

// htmlChunk is how many UTF-16 code units of the serialized HTML one
// call brings over (at most 3 bytes each as UTF-8).
const htmlChunk = 1 << 20

// serializeScript serializes the document as Playwright's page.Content
// does (the doctype, then the root element's outerHTML), but stops before
// the output would pass cap UTF-16 code units, so that a page whose HTML
// is far larger than the crawl stores costs no more than the cap to
// serialize and to move. It never stops inside a tag: the output is a
// prefix of the page's HTML made of whole tags, text (a text node or a
// comment may be cut) and end tags. The output stays in the world's
// htmlGlobal; the script returns {units, truncated}.
//
// A subtree whose serialization cannot pass the budget left (an upper
// bound from the lengths of its names, values and texts, escaping
// included) is serialized by the browser itself (outerHTML); around the
// cut the walk goes down the tree, each element's tags serialized by the
// browser from a copy without children in an inert document, each text
// escaped as the HTML serialization algorithm does. A page below the cap
// is thus one outerHTML call, as page.Content.
const serializeScript = `(cap) => {
  const HTML_NS = "http://www.w3.org/1999/xhtml";
  const VOID = new Set(["area","base","basefont","bgsound","br","col","embed","frame","hr","img","input","keygen","link","meta","param","source","track","wbr"]);
  const RAW = new Set(["style","script","xmp","iframe","noembed","noframes","plaintext","noscript"]);
  // Elements with more attributes than FEW are not measured attribute by
  // attribute: reading every Attr costs the square of their number.
  const FEW = 64;
  // An inert document: an element imported there (its attributes, not
  // its children) serializes its own tags without running, loading or
  // upgrading anything.
  const inert = document.implementation.createHTMLDocument("");
  const kids = (n) => (n.nodeType === 1 && n.namespaceURI === HTML_NS && n.localName === "template") ? n.content.childNodes : n.childNodes;
  const escText = (s) => s.replace(/&/g, "&amp;").replace(/\u00a0/g, "&nbsp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  const rawParent = (t) => { const p = t.parentNode; return p && p.nodeType === 1 && p.namespaceURI === HTML_NS && RAW.has(p.localName); };
  // Bounds of a node's own serialization (without its children): upper
  // (escaping included; Infinity when not measured) and lower.
  const own = (n) => {
    switch (n.nodeType) {
      case 1: {
        let u = 2 * n.tagName.length + 5;
        if (!n.hasAttributes()) return u;
        if (n.attributes.length > FEW) return Infinity;
        for (const a of n.attributes) u += a.name.length + 10 + 6 * a.value.length;
        return u;
      }
      case 3: return 6 * n.data.length;
      case 7: return 4 + n.target.length + n.data.length;
      case 8: return 7 + n.data.length;
    }
    return 0;
  };
  const lowerTag = (e) => {
    let l = e.tagName.length + 2;
    if (e.attributes.length > FEW) { for (const name of e.getAttributeNames()) l += name.length + 4; return l; }
    for (const a of e.attributes) l += a.name.length + a.value.length + 4;
    return l;
  };
  // Upper bounds of every element's serialization, children first.
  const upper = new Map();
  const root = document.documentElement;
  if (root) {
    const stack = [[root, false]];
    while (stack.length) {
      const top = stack[stack.length - 1];
      const n = top[0];
      const first = (n.namespaceURI === HTML_NS && n.localName === "template") ? n.content.firstChild : n.firstChild;
      if (!top[1]) {
        top[1] = true;
        for (let c = first; c; c = c.nextSibling) if (c.nodeType === 1) stack.push([c, false]);
        continue;
      }
      stack.pop();
      let u = own(n);
      for (let c = first; c; c = c.nextSibling) u += c.nodeType === 1 ? upper.get(c) : own(c);
      upper.set(n, u);
    }
  }
  const out = [];
  let used = 0, truncated = false;
  // put adds s whole if it fits, else (cut allowed) its part that fits;
  // it reports whether s went whole.
  const put = (s, cut) => {
    const left = cap - used;
    if (s.length <= left) { out.push(s); used += s.length; return true; }
    truncated = true;
    if (cut && left > 0) {
      let k = left;
      const c = s.charCodeAt(k - 1);
      if (c >= 0xd800 && c <= 0xdbff) k--;
      out.push(s.slice(0, k));
      used += k;
    }
    return false;
  };
  const done = () => { globalThis.` + htmlGlobal + ` = out.join(""); return {units: used, truncated}; };
  const doctype = document.doctype ? new XMLSerializer().serializeToString(document.doctype) : "";
  if (doctype && !put(doctype, false)) return done();
  if (!root) return done();
  const stack = [root];
  while (stack.length && !truncated) {
    const n = stack.pop();
    if (typeof n === "string") { put(n, false); continue; }
    switch (n.nodeType) {
      case 1: {
        if (upper.get(n) <= cap - used) { put(n.outerHTML, false); continue; }
        if (lowerTag(n) > cap - used) { truncated = true; continue; }
        const tags = inert.importNode(n, false).outerHTML;
        const isVoid = n.namespaceURI === HTML_NS && VOID.has(n.localName);
        const split = isVoid ? tags.length : tags.lastIndexOf("</");
        if (!put(tags.slice(0, split), false)) continue;
        if (isVoid) continue;
        stack.push(tags.slice(split));
        const cs = kids(n);
        for (let i = cs.length - 1; i >= 0; i--) stack.push(cs[i]);
        continue;
      }
      case 3: {
        const d = n.data.length > cap - used ? n.data.slice(0, cap - used) : n.data;
        put(rawParent(n) ? d : escText(d), true);
        if (d.length < n.data.length) truncated = true;
        continue;
      }
      case 7: put("<?" + n.target + " " + n.data + ">", false); continue;
      case 8: put("<!--" + (n.data.length > cap - used ? n.data.slice(0, cap - used) : n.data) + "-->", true); continue;
    }
  }
  return done();
}`

// chunkScript returns [end, text]: the serialized HTML from code unit i
// to end, at most htmlChunk units, not ending between the two halves of
// a surrogate pair.
const chunkScript = `(i, n) => {
  const s = globalThis.` + htmlGlobal + ` || "";
  let j = Math.min(s.length, i + n);
  if (j < s.length && j > i) { const c = s.charCodeAt(j - 1); if (c >= 0xd800 && c <= 0xdbff) j--; }
  return [j, s.slice(i, j)];
}`

// pageHTML is the HTML readHTML took: the document serialized by the
// page, stopped at the cap.
type pageHTML struct {
	// HTML is the serialization, or its prefix of whole tags when
	// Truncated.
	HTML string
	// Truncated reports that the page stopped serializing at the cap: the
	// document's HTML is longer than HTML.
	Truncated bool
}

// readHTML serializes the document of world (an isolated world of the
// page's main frame) in the page, up to maxUnits UTF-16 code units, and
// brings the result over in chunks of htmlChunk units, so that neither
// the page nor a message holds more than the cap whatever the document.
func readHTML(ctx context.Context, cdp cdpSender, world float64, maxUnits int) (pageHTML, error) {
	res, err := evaluateIn(cdp, world, fmt.Sprintf("(%s)(%d)", serializeScript, maxUnits), timeoutMS(ctx))
	if err != nil {
		return pageHTML{}, fmt.Errorf("serialize HTML: %w", err)
	}
	units, _ := dig(res, "units").(float64)
	truncated, _ := dig(res, "truncated").(bool)
	defer func() { _, _ = evaluateIn(cdp, world, "delete globalThis."+htmlGlobal, 0) }()
	var b strings.Builder
	for i := 0; i < int(units); {
		if err := ctx.Err(); err != nil {
			return pageHTML{}, fmt.Errorf("read HTML: %w", err)
		}
		res, err := evaluateIn(cdp, world, fmt.Sprintf("(%s)(%d, %d)", chunkScript, i, htmlChunk), timeoutMS(ctx))
		if err != nil {
			return pageHTML{}, fmt.Errorf("read HTML: %w", err)
		}
		pair, _ := res.([]any)
		if len(pair) != 2 {
			return pageHTML{}, fmt.Errorf("read HTML: chunk at %d: got %T", i, res)
		}
		end, _ := pair[0].(float64)
		text, _ := pair[1].(string)
		if int(end) <= i {
			return pageHTML{}, fmt.Errorf("read HTML: chunk at %d of %d is empty", i, int(units))
		}
		b.WriteString(text)
		i = int(end)
	}
	return pageHTML{HTML: b.String(), Truncated: truncated}, nil
}
