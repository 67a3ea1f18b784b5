// oracle.js: a second, independent implementation of actionspace's ID rule
// (docs/perception.md), evaluated live in the page. Tests compare its
// answer with the offline filter (dom.Tree.Select) over a capture of the
// same page: both must give the same IDs on the same elements.
//
// Where capture.js walks once with a stack and passes state down, this walks
// the flat tree recursively and asks every question of the live DOM:
// closest(), ancestor walks, checkVisibility(), elementFromPoint().
//
// A cross-origin frame's document cannot be read from the page: the
// oracle sees the iframe and nothing inside it. Tests compare it with a
// capture that is not stitched, which leaves the same content out.
//
// (expansions) => JSON string {"E": [[id, tag, x, y, w, h], ...], ...}
(expansions) => {
  const INTERACTIVE_ROLES = ["button", "link", "checkbox", "radio", "switch", "tab", "menuitem",
    "menuitemcheckbox", "menuitemradio", "option", "textbox", "searchbox", "combobox", "listbox",
    "slider", "spinbutton", "treeitem"];
  const LETTER = {link: "L", button: "B", tab: "B", menuitem: "B", menuitemcheckbox: "B", menuitemradio: "B",
    switch: "B", checkbox: "B", radio: "B", treeitem: "B", textbox: "I", searchbox: "I", combobox: "I",
    listbox: "I", slider: "I", spinbutton: "I", img: "F", image: "F", figure: "F", option: "O"};
  const OTHER_ROLES = ["gridcell", "row", "cell", "group", "dialog", "alertdialog", "menu", "menubar", "tablist",
    "tabpanel", "tree", "grid", "navigation", "presentation", "none", "heading", "list", "listitem", "region",
    "banner", "main", "contentinfo", "form", "search", "article", "toolbar", "progressbar", "scrollbar",
    "separator", "generic", "status", "alert", "log", "tooltip"];

  // flat-tree parent: DOM parent, shadow host, or the frame element
  const parentOf = (el) => {
    if (el.assignedSlot) return el.assignedSlot;
    if (el.parentElement) return el.parentElement;
    const root = el.getRootNode();
    if (root.host) return root.host;
    const win = el.ownerDocument.defaultView;
    return win && win.frameElement ? win.frameElement : null;
  };
  const ancestors = function* (el) { for (let a = parentOf(el); a; a = parentOf(a)) yield a; };
  // offset of a frame's viewport in top-page coordinates
  const frameOffset = (doc) => {
    let x = 0, y = 0;
    for (let w = doc.defaultView; w && w.frameElement; w = w.frameElement.ownerDocument.defaultView) {
      const r = w.frameElement.getBoundingClientRect();
      x += r.left + w.frameElement.clientLeft; y += r.top + w.frameElement.clientTop;
    }
    return [x + window.scrollX, y + window.scrollY];
  };
  const style = (el) => el.ownerDocument.defaultView.getComputedStyle(el);
  const roleToken = (el) => {
    const r = el.getAttribute("role");
    if (!r) return "";
    for (const t of r.trim().toLowerCase().split(/\s+/)) if (LETTER[t] || OTHER_ROLES.includes(t)) return t;
    return "";
  };
  // the role attribute makes an element interactive when its first known
  // token is an interactive role
  const interactiveRoleToken = (el) => {
    const t = roleToken(el);
    return INTERACTIVE_ROLES.includes(t) || (t === "gridcell" && el.tabIndex >= 0) ? t : "";
  };
  const role = (el) => {
    const r = roleToken(el);
    if (r) return r;
    const tag = el.localName;
    const type = (el.getAttribute("type") || "").toLowerCase();
    if ((tag === "a" || tag === "area") && el.hasAttribute("href")) return "link";
    if (tag === "button" || tag === "summary") return "button";
    if (tag === "select") return el.multiple || (el.size > 1) ? "listbox" : "combobox";
    if (tag === "textarea") return "textbox";
    if (tag === "option") return "option";
    if (tag === "img") return "img";
    if (tag === "figure") return "figure";
    if (tag === "details") return "group";
    if (tag === "input") {
      if (["button", "submit", "reset", "image", "file", "color"].includes(type)) return "button";
      if (type === "checkbox") return "checkbox";
      if (type === "radio") return "radio";
      if (type === "range") return "slider";
      if (type === "number") return "spinbutton";
      if (el.hasAttribute("list")) return "combobox";
      return type === "search" ? "searchbox" : "textbox";
    }
    if (el.isContentEditable) return "textbox";
    return "";
  };
  // own signals, as [distinct, any]
  const signals = (el) => {
    const tag = el.localName;
    if (tag === "input" && (el.getAttribute("type") || "").toLowerCase() === "hidden") return [false, false];
    const parent = parentOf(el);
    const byTag = ((tag === "a" || tag === "area") && el.hasAttribute("href")) ||
      (tag === "details" && !el.querySelector(":scope > summary")) ||
      ["button", "input", "select", "textarea", "summary", "option"].includes(tag);
    const editable = el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable);
    const byRole = interactiveRoleToken(el) !== "";
    const handler = ["onclick", "onmousedown", "onmouseup", "ondblclick", "onkeydown"].some((h) => el.hasAttribute(h));
    const distinct = byTag || editable || byRole || handler;
    const tab = el.hasAttribute("tabindex") && parseInt(el.getAttribute("tabindex"), 10) >= 0;
    const cursor = style(el).cursor === "pointer" && !(parent && parent.nodeType === 1 && style(parent).cursor === "pointer");
    const hp = el.hasAttribute("aria-haspopup") && el.getAttribute("aria-haspopup") !== "false";
    const label = tag === "label" && !!el.control;
    return [distinct, distinct || tab || cursor || hp || label];
  };
  const disabled = (el) => {
    if (["button", "input", "select", "textarea", "option", "optgroup", "fieldset"].includes(el.localName) && el.matches(":disabled")) return true;
    if (el.getAttribute("aria-disabled") === "true") return true;
    for (let a = el; a; a = parentOf(a)) if (a.inert) return true;
    const c = style(el).cursor;
    return c === "not-allowed" || c === "wait";
  };
  // box: the element's rect in page coordinates cut by every clipping
  // ancestor (overflow other than visible), and whether a clip that cannot
  // be scrolled (hidden/clip) hides it entirely.
  const box = (el) => {
    const [ox, oy] = frameOffset(el.ownerDocument);
    const r = el.getBoundingClientRect();
    let l = r.left + ox, t = r.top + oy, rr = l + r.width, b = t + r.height;
    let hl = l, ht = t, hr = rr, hb = b;
    if (style(el).position !== "fixed") {
      for (const a of ancestors(el)) {
        if (a.localName === "html" || a.localName === "body") continue;
        if (a.localName === "iframe" || a.localName === "frame") {
          const [fx, fy] = frameOffset(a.ownerDocument);
          const fr = a.getBoundingClientRect();
          const cl = fr.left + fx + a.clientLeft, ct = fr.top + fy + a.clientTop;
          l = Math.max(l, cl); t = Math.max(t, ct); rr = Math.min(rr, cl + a.clientWidth); b = Math.min(b, ct + a.clientHeight);
          hl = Math.max(hl, cl); ht = Math.max(ht, ct); hr = Math.min(hr, cl + a.clientWidth); hb = Math.min(hb, ct + a.clientHeight);
          continue;
        }
        const s = style(a);
        const clipsX = s.overflowX !== "visible", clipsY = s.overflowY !== "visible";
        if (!clipsX && !clipsY) { if (s.position === "fixed") break; continue; }
        const [ax, ay] = frameOffset(a.ownerDocument);
        const ar = a.getBoundingClientRect();
        const al = ar.left + ax, at = ar.top + ay;
        l = Math.max(l, al); t = Math.max(t, at); rr = Math.min(rr, al + ar.width); b = Math.min(b, at + ar.height);
        const hardX = s.overflowX === "hidden" || s.overflowX === "clip" || !clipsY;
        const hardY = s.overflowY === "hidden" || s.overflowY === "clip" || !clipsX;
        if (clipsX && hardX) { hl = Math.max(hl, al); hr = Math.min(hr, al + ar.width); }
        if (clipsY && hardY) { ht = Math.max(ht, at); hb = Math.min(hb, at + ar.height); }
        if (s.position === "fixed") break;
      }
    }
    return {full: [r.left + ox, r.top + oy, r.width, r.height], cut: [l, t, Math.max(0, rr - l), Math.max(0, b - t)],
      shown: hr > hl && hb > ht};
  };
  const visible = (el) => {
    if (!el.checkVisibility({opacityProperty: true, visibilityProperty: true})) return false;
    for (let a = el; a; a = parentOf(a)) {
      if (a.getAttribute("aria-hidden") === "true" || a.hidden || a.inert) return false;
      const o = style(a);
      if (o.opacity === "0" || o.display === "none") return false;
    }
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && box(el).shown;
  };
  const covered = (el) => {
    const doc = el.ownerDocument;
    const win = doc.defaultView;
    const r = el.getBoundingClientRect();
    const cx = r.left + r.width / 2, cy = r.top + r.height / 2;
    if (cx < 0 || cy < 0 || cx >= win.innerWidth || cy >= win.innerHeight) return false;
    if (win.frameElement) {
      const fr = win.frameElement;
      if (fr.clientWidth && (cx >= fr.clientWidth || cy >= fr.clientHeight)) return false;
    }
    const hit = doc.elementFromPoint(cx, cy);
    let self = el;
    while (self.getRootNode().host) self = self.getRootNode().host;
    if (hit && (hit === self || self.contains(hit) || hit.contains(self))) return false;
    if (hit && el.labels) for (const l of el.labels) if (l === hit || l.contains(hit)) return false;
    return true;
  };
  const isModal = (el) => {
    if (el.localName === "dialog" && el.open && el.matches(":modal")) return true;
    const r = roleToken(el);
    return (r === "dialog" || r === "alertdialog") && el.getAttribute("aria-modal") === "true";
  };

  // flat-tree pre-order of elements
  const order = [];
  const SKIP = ["script", "style", "noscript", "template", "head"];
  const visit = (el) => {
    if (SKIP.includes(el.localName)) return;
    order.push(el);
    let kids;
    if (el.shadowRoot) kids = el.shadowRoot.children;
    else if (el.localName === "slot") kids = el.assignedElements({flatten: true}).length ? el.assignedElements({flatten: true}) : el.children;
    else if (el.localName === "iframe" || el.localName === "frame") {
      let d = null;
      try { d = el.contentDocument; } catch (e) { d = null; }
      kids = d && d.documentElement ? [d.documentElement] : [];
    } else kids = el.children;
    for (const k of kids) visit(k);
  };
  visit(document.documentElement);

  const cand = new Map(); // el -> {distinct}
  for (const el of order) {
    const [distinct, any] = signals(el);
    if (any && !disabled(el) && visible(el)) cand.set(el, distinct);
  }
  const out = {};
  const se = document.scrollingElement || document.documentElement;
  const docW = Math.max(se.scrollWidth, document.documentElement.scrollWidth, document.body ? document.body.scrollWidth : 0);
  const docH = Math.max(se.scrollHeight, document.documentElement.scrollHeight, document.body ? document.body.scrollHeight : 0);
  for (const E of expansions) {
    const win = E === -1 ? [0, 0, docW, docH] :
      [window.scrollX - E, window.scrollY - E, window.innerWidth + 2 * E, window.innerHeight + 2 * E];
    const inWin = (r) => r[2] > 0 && r[3] > 0 && r[0] < win[0] + win[2] && win[0] < r[0] + r[2] && r[1] < win[1] + win[3] && win[1] < r[1] + r[3];
    let emitted = [];
    for (const [el, distinct] of cand) {
      if (covered(el)) continue;
      const b = box(el);
      if (!inWin(E === -1 ? b.full : b.cut)) continue;
      let nestedIn = false;
      for (const a of ancestors(el)) if (cand.has(a)) { nestedIn = true; break; }
      if (nestedIn && !distinct) continue;
      emitted.push(el);
    }
    const set = new Set(emitted);
    emitted = emitted.filter((el) => !(el.localName === "label" && el.control && set.has(el.control)));
    const inModal = (el) => { for (let a = el; a; a = parentOf(a)) if (isModal(a) && visible(a)) return true; return false; };
    if (emitted.some(inModal)) emitted = emitted.filter(inModal);
    const counts = {};
    out[E] = emitted.map((el) => {
      const letter = LETTER[role(el)] || "M";
      counts[letter] = (counts[letter] || 0) + 1;
      const f = box(el).full;
      return [letter + counts[letter], el.localName, Math.round(f[0]), Math.round(f[1]), Math.round(f[2]), Math.round(f[3])];
    });
  }
  return JSON.stringify(out);
}
