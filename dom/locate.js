// actionspace reference resolver of locators (dom.Tree.Locator): returns
// the elements a locator matches, as an array. A locator is XPath segments
// joined by " >> "; each segment after the first runs in the document of
// the iframe or frame the previous one matched, or else in the open shadow
// root of the element it matched (with a node of the shadow tree as the
// context node, so that "/" and id() refer to the shadow root).
(locator) => {
  const parts = locator.split(" >> ");
  let ctx = document;
  let found = [];
  for (let i = 0; i < parts.length; i++) {
    if (i > 0) {
      if (found.length !== 1) return found;
      const el = found[0];
      if (el.localName === "iframe" || el.localName === "frame") {
        ctx = el.contentDocument;
        if (!ctx) throw new Error("cross-origin frame: run " + JSON.stringify(parts.slice(i).join(" >> ")) + " in it");
      } else {
        const root = el.shadowRoot;
        if (!root || !root.firstChild) return [];
        ctx = root.firstChild;
      }
    }
    const doc = ctx.nodeType === 9 ? ctx : ctx.ownerDocument;
    const r = doc.evaluate(parts[i], ctx, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
    found = [];
    for (let k = 0; k < r.snapshotLength; k++) found.push(r.snapshotItem(k));
  }
  return found;
}
