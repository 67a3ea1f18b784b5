// actionspace capture script. Evaluated once per page (in an isolated world),
// it walks the rendered DOM and returns a JSON string: the page geometry and
// one flat, pre-order list of element and text nodes. Which elements get IDs
// for a given viewport_expansion is decided later, in Go, from this record.
//
// The script is one function expression taking an options object:
//   {maxNodes, maxChars, attrCap, maxAttrs, nameCap, textCap, optionCap,
//    titleCap, urlCap, maxSecrets, exactOcclusion}
// (dom.ScriptOptions). Everything the page decides the size of is capped by
// one of them, and page.capped names the caps that were hit.
// Field names of the record are documented on dom.Node and dom.PageInfo.
(opts) => {
  const t0 = performance.now();
  const opt = (name, def) => (opts && opts[name] > 0) ? opts[name] : def;
  const maxNodes = opt("maxNodes", 200000);
  const maxChars = opt("maxChars", 8000000);
  const attrCap = opt("attrCap", 200);
  const maxAttrs = opt("maxAttrs", 64);
  const nameCap = opt("nameCap", 100);
  const textCap = opt("textCap", 2000);
  const optionCap = opt("optionCap", 50);
  const titleCap = opt("titleCap", 1000);
  const urlCap = opt("urlCap", 8192);
  const maxSecrets = opt("maxSecrets", 256);
  const exactOcclusion = !!(opts && opts.exactOcclusion);

  const SKIP = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "HEAD", "META", "LINK", "BASE", "TITLE"]);
  const FORM_TAGS = new Set(["button", "input", "select", "textarea", "summary", "option"]);
  const DISABLEABLE = new Set(["button", "input", "select", "textarea", "option", "optgroup", "fieldset"]);
  const ROLES = new Set(["button", "link", "checkbox", "radio", "switch", "tab", "menuitem",
    "menuitemcheckbox", "menuitemradio", "option", "textbox", "searchbox", "combobox", "listbox",
    "slider", "spinbutton", "treeitem"]);
  // KNOWN: every role the Go side recognises (dom/roles.go). A role
  // attribute's first known token is the element's role; only when that
  // role is interactive does it make the element interactive.
  const KNOWN = new Set([...ROLES, "img", "image", "figure", "gridcell", "row", "cell", "group",
    "dialog", "alertdialog", "menu", "menubar", "tablist", "tabpanel", "tree", "grid", "navigation",
    "presentation", "none", "heading", "list", "listitem", "region", "banner", "main", "contentinfo",
    "form", "search", "article", "toolbar", "progressbar", "scrollbar", "separator", "generic",
    "status", "alert", "log", "tooltip"]);
  const HANDLERS = new Set(["onclick", "onmousedown", "onmouseup", "ondblclick", "onkeydown"]);
  const CLIPS = new Set(["hidden", "clip", "auto", "scroll"]);
  // elements a <label> can label: only these need their node index kept
  const LABELABLE = new Set(["button", "input", "meter", "output", "progress", "select", "textarea"]);
  // KEEP: the attributes the Go side reads (roles, rendering, locators),
  // recorded even past maxAttrs.
  const KEEP = new Set(["id", "role", "type", "name", "href", "src", "alt", "title", "value", "placeholder",
    "aria-label", "aria-expanded", "aria-checked", "aria-selected", "checked", "selected", "multiple",
    "size", "list", "action"]);
  // RULES: the attributes whose values the rules below read.
  const RULES = new Set(["role", "tabindex", "aria-hidden", "aria-disabled", "aria-modal", "aria-haspopup", "type", "id"]);
  const HTML_NS = "http://www.w3.org/1999/xhtml";
  const INF = 1e9;

  const vw = window.innerWidth, vh = window.innerHeight;
  const sx = window.scrollX, sy = window.scrollY;
  const nodes = [];
  const elIndex = new Map();
  const pendingLabels = [];
  const occlusion = [];
  const docs = [];
  // cross-origin frame elements, in order: node.fx is the 1-based position
  // here. The list stays in this world's global for the caller, which
  // captures those frames through their own execution contexts.
  const fxEls = [];
  // the DOM node of each record entry, by index: left in this world's
  // global for the caller, which ties other records of the same page
  // state (the accessibility tree) to the capture's elements.
  const domNodes = [];
  // Element identity (dom.Node.Key, dom.PageInfo.Doc): this world lives
  // as long as its document, and is the same world at every capture of
  // that document, so a key given here survives later captures of the
  // same document. The page's scripts cannot reach it. A new document
  // starts a new world, with a new random token and new keys.
  let ident = globalThis.__actionspaceIdentity;
  if (!ident) {
    const b = new Uint8Array(8);
    crypto.getRandomValues(b);
    let doc = "";
    for (const v of b) doc += (v + 256).toString(16).slice(1);
    ident = globalThis.__actionspaceIdentity = {doc, next: 0, keys: new WeakMap()};
  }
  const keyOf = (el) => {
    let k = ident.keys.get(el);
    if (k === undefined) { k = ++ident.next; ident.keys.set(el, k); }
    return k;
  };
  let truncated = false;
  let elements = 0, texts = 0;
  // chars counts the characters of the strings recorded so far (texts,
  // names, values, labels): with maxNodes, it bounds the record's size.
  let chars = 0;
  // capped: the caps that were hit (see dom.PageInfo.Capped)
  const capped = new Set();
  // secrets: the values of password and hidden inputs ([kind, value],
  // kind "p" or "h"), live and as attributes, distinct. They never enter
  // the record: the list stays in this world's global for the caller,
  // which scrubs them from every other record of the page state. At most
  // maxSecrets values and maxChars characters ("secrets" in page.capped
  // past that). passwords counts the password inputs met.
  const secrets = [], secretSeen = new Set();
  let secretChars = 0, passwords = 0;
  const keepSecret = (kind, v) => {
    if (typeof v !== "string" || v === "" || secretSeen.has(kind + v)) return;
    if (secrets.length >= maxSecrets || secretChars + v.length > maxChars) { capped.add("secrets"); return; }
    secretSeen.add(kind + v);
    secretChars += v.length;
    secrets.push([kind, v]);
  };
  const cut = (s, cap, what) => {
    if (s.length <= cap) return s;
    capped.add(what);
    return s.slice(0, cap);
  };

  // Locator facts (see dom.Tree.Locator). Per tree scope (a document or
  // a shadow root), built on first need: how many elements carry each
  // id, and every element's 1-based position in tree order.
  const scopes = new Map();
  const scopeOf = (el) => {
    const root = el.getRootNode();
    let s = scopes.get(root);
    if (!s) { s = {root, ids: null, order: null}; scopes.set(root, s); }
    return s;
  };
  const uniqueID = (el, id) => {
    const s = scopeOf(el);
    if (!s.ids) {
      s.ids = new Map();
      for (const e of s.root.querySelectorAll("[id]")) {
        const v = e.getAttribute("id");
        s.ids.set(v, (s.ids.get(v) || 0) + 1);
      }
    }
    return s.ids.get(id) === 1;
  };
  const treeIndex = (el) => {
    const s = scopeOf(el);
    if (!s.order) {
      s.order = new Map();
      let k = 0;
      for (const e of s.root.querySelectorAll("*")) s.order.set(e, ++k);
    }
    return s.order.get(el) || 0;
  };
  // shadow hosts by node index, and the positions of their light children
  // among the children with the same name (slotted elements' XPath steps)
  const hostIndex = new Map();
  const lightPos = new Map();
  const lightPosOf = (el) => {
    const parent = el.parentNode;
    let m = lightPos.get(parent);
    if (!m) {
      m = new Map();
      const count = new Map();
      for (const c of parent.children) {
        const k = (count.get(c.localName) || 0) + 1;
        count.set(c.localName, k);
        m.set(c, k);
      }
      lightPos.set(parent, m);
    }
    return m.get(el) || 0;
  };

  const round = (v) => Math.round(v * 100) / 100;
  // clipRect intersects a page-coordinate rect with a clip box [l, t, r, b].
  const clipRect = (x, y, w, h, c) => {
    const l = Math.max(x, c[0]), t = Math.max(y, c[1]);
    const r = Math.min(x + w, c[2]), b = Math.min(y + h, c[3]);
    return r > l && b > t ? [round(l), round(t), round(r - l), round(b - t)] : [round(l), round(t), 0, 0];
  };
  const NOCLIP = [-INF, -INF, INF, INF];
  // pseudoBoxes reports whether style sheets may give ::before/::after a
  // box outside their element's (a position other than static), or cannot
  // be read.
  const PSEUDO = /:(before|after)\b/i;
  const pseudoRules = (rules) => {
    for (const r of rules) {
      if (r.styleSheet) { // @import
        let sub = null;
        try { sub = r.styleSheet.cssRules; } catch (e) { return true; }
        if (sub && pseudoRules(sub)) return true;
        continue;
      }
      if (r.selectorText !== undefined && PSEUDO.test(r.selectorText)) {
        const pos = r.style.getPropertyValue("position");
        if (pos && pos !== "static") return true;
      }
      if (r.cssRules && r.cssRules.length && pseudoRules(r.cssRules)) return true; // @media, @layer, nesting
    }
    return false;
  };
  const pseudoBoxes = (sheets) => {
    for (const sheet of sheets) {
      let rules = null;
      try { rules = sheet.cssRules; } catch (e) { return true; }
      if (rules && pseudoRules(rules)) return true;
    }
    return false;
  };

  // flag bits of a stack entry: what the parent passes down
  // (SLOTTED is set on the entries of a slot's assigned nodes only)
  const POINTER = 1, VISIBLE = 2, SHADOW = 4, ARIA = 8, INERT = 16, SEEN = 32, SLOTTED = 64;

  // walk visits one document (the top one or a same-origin frame's), whose
  // viewport origin sits at (ox, oy) in top-page coordinates; clip0 bounds
  // what of it can show (a frame's box); flags0 carries aria-hidden and
  // inert from the frame element into its document.
  const walk = (doc, rootParent, frame, ox, oy, fvw, fvh, clip0, flags0) => {
    const win = doc.defaultView;
    const range = doc.createRange();
    // what occlusion needs of this document: the boxes (viewport
    // coordinates, with the node index that owns them) that meet its
    // viewport, the shadow roots whose style sheets count, and whether
    // something may paint outside every recorded box
    const hits = {doc, boxes: [], roots: [], risky: false, checked: false};
    docs.push(hits);
    // the part of the viewport a pointer can hit: without the scroll
    // bars (the scrolling element's client box), as the actionable-now
    // probe cuts it
    const se = doc.scrollingElement || doc.documentElement;
    const hw = se && se.clientWidth ? Math.min(se.clientWidth, fvw) : fvw;
    const hh = se && se.clientHeight ? Math.min(se.clientHeight, fvh) : fvh;
    const record = (l, t, w, h, owner) => {
      if (w > 0 && h > 0 && l < fvw && t < fvh && l + w > 0 && t + h > 0) hits.boxes.push(l, t, l + w, t + h, owner);
    };
    // One stack entry per pending node, as parallel arrays:
    // node, parent index, flags, hard clip, soft clip.
    const sNode = [doc.documentElement], sParent = [rootParent], sFlags = [VISIBLE | SEEN | flags0], sHard = [clip0], sSoft = [clip0];
    while (sNode.length) {
      const node = sNode.pop(), parent = sParent.pop(), flags = sFlags.pop(), hard = sHard.pop(), soft = sSoft.pop();
      if (!node) continue;
      if (nodes.length >= maxNodes) { truncated = true; capped.add("nodes"); break; }
      if (chars >= maxChars) { truncated = true; capped.add("chars"); break; }
      if (node.nodeType === 3) {
        const raw = node.nodeValue;
        if (!raw || !raw.trim()) continue;
        const n = {k: 3, p: parent, t: cut(raw, textCap, "text"), r: [0, 0, 0, 0], v: false};
        chars += n.t.length;
        if ((flags & VISIBLE) && (flags & SEEN)) {
          range.selectNodeContents(node);
          const br = range.getBoundingClientRect();
          record(br.left, br.top, br.width, br.height, parent);
          const x = br.left + ox, y = br.top + oy;
          n.r = [round(x), round(y), round(br.width), round(br.height)];
          n.v = br.width > 0 && br.height > 0 && clipRect(x, y, br.width, br.height, hard)[2] > 0;
          if (n.v && soft !== NOCLIP) {
            const c = clipRect(x, y, br.width, br.height, soft);
            if (c[2] !== n.r[2] || c[3] !== n.r[3]) n.cr = c;
          }
        }
        texts++;
        nodes.push(n);
        domNodes.push(node);
        continue;
      }
      if (node.nodeType !== 1 || SKIP.has(node.nodeName)) continue;
      const el = node;
      const fullTag = el.localName;
      const tag = cut(fullTag, nameCap, "names");
      chars += tag.length;
      // Computed style properties are read only where the rules need them:
      // each read costs about as much as getComputedStyle itself.
      const cs = win.getComputedStyle(el);
      const display = cs.display, cursor = cs.cursor;
      const br = el.getBoundingClientRect();
      const index = nodes.length;
      elements++;
      record(br.left, br.top, br.width, br.height, index);

      // one pass over the attributes: record them (capped) and read the
      // ones the rules need. The values of password and hidden inputs
      // (passwords, CSRF tokens) never leave the page.
      const inputType = tag === "input" ? (el.type || "").toLowerCase() : "";
      const isPassword = inputType === "password";
      const secret = isPassword || inputType === "hidden";
      if (secret) {
        if (isPassword) passwords++;
        keepSecret(isPassword ? "p" : "h", el.value);
        keepSecret(isPassword ? "p" : "h", el.getAttribute("value"));
      }
      const attrs = [];
      let roleAttr = null, tabindex = null, handler = false, ariaHidden = false, ariaDisabled = false,
        ariaModal = false, hasPopup = false, href = false, typeAttr = null, idAttr = null;
      // (getAttributeNames is several times faster than iterating
      // el.attributes, which makes an Attr object per attribute)
      // getAttribute searches the attribute list from its start, so on an
      // element with many attributes only the first ones recorded and the
      // few the rules and the Go side read are looked up: a read of every
      // value would cost the square of their number.
      const names = el.getAttributeNames();
      const many = names.length > maxAttrs;
      let exact = null;
      for (const name of names) {
        const hidden = secret && name === "value";
        const record = !hidden && name.length <= nameCap && (attrs.length < maxAttrs || KEEP.has(name));
        if (!hidden && !record) capped.add(name.length > nameCap ? "names" : "attributes");
        if (name === "href") href = true;
        else if (HANDLERS.has(name)) handler = true;
        if (!record && !RULES.has(name)) continue;
        let value = el.getAttribute(name);
        if (value === null) {
          // a name getAttribute lowercases: read them by exact name (not
          // on an element with many attributes, where that costs the
          // square of their number)
          if (!exact) {
            exact = new Map();
            if (!many) for (const a of el.attributes) exact.set(a.name, a.value);
          }
          value = exact.get(name) || "";
        }
        if (record) {
          const v = cut(value, attrCap, "values");
          chars += name.length + v.length;
          attrs.push([name, v]);
        }
        switch (name) {
          case "role": roleAttr = value; break;
          case "tabindex": tabindex = value; break;
          case "aria-hidden": ariaHidden = value === "true"; break;
          case "aria-disabled": ariaDisabled = value === "true"; break;
          case "aria-modal": ariaModal = value === "true"; break;
          case "aria-haspopup": hasPopup = value !== "false"; break;
          case "type": typeAttr = value.toLowerCase(); break;
          case "id": idAttr = value; break;
        }
      }
      const inert = (flags & INERT) !== 0 || el.inert;
      const aria = (flags & ARIA) !== 0 || ariaHidden || el.hidden || inert;

      // rendered: display and opacity hide a whole subtree (the flag carries
      // them down); visibility is inherited but a child may override it, so
      // it is read per element (and passed to text children as SEEN).
      // checkVisibility adds what styles alone do not tell: content hidden
      // by an ancestor's content-visibility (a closed <details>).
      const rendered = (flags & VISIBLE) !== 0 && display !== "none" && cs.opacity !== "0";
      const visible = rendered && cs.visibility === "visible" &&
        (typeof el.checkVisibility !== "function" || el.checkVisibility());
      const x = br.left + ox, y = br.top + oy;
      // a fixed element escapes its ancestors' clips (only worth asking
      // when there are any)
      const fixed = (hard !== clip0 || soft !== clip0) && cs.position === "fixed";
      const myHard = fixed ? clip0 : hard, mySoft = fixed ? clip0 : soft;
      const shown = br.width > 0 && br.height > 0 &&
        Math.min(x + br.width, myHard[2]) > Math.max(x, myHard[0]) && Math.min(y + br.height, myHard[3]) > Math.max(y, myHard[1]);

      // interactivity signals
      const sig = [];
      const type = tag === "input" ? (typeAttr || "text") : "";
      if ((tag === "a" || tag === "area") && href) sig.push("tag");
      else if (tag === "details") { if (!el.querySelector(":scope > summary")) sig.push("tag"); }
      else if (FORM_TAGS.has(tag)) sig.push("tag");
      if (el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) sig.push("editable");
      // role: the first known token of the role attribute, kept only
      // when it is interactive
      let role = "", known = "";
      if (roleAttr) {
        for (const tok of roleAttr.trim().toLowerCase().split(/\s+/)) {
          if (KNOWN.has(tok)) { known = tok; break; }
        }
        if (ROLES.has(known) || (known === "gridcell" && el.tabIndex >= 0)) role = known;
      }
      if (role) sig.push("role");
      if (tabindex !== null && parseInt(tabindex, 10) >= 0) sig.push("tabindex");
      if (handler) sig.push("handler");
      const pointer = cursor === "pointer";
      if (pointer && !(flags & POINTER)) sig.push("cursor");
      if (hasPopup) sig.push("haspopup");
      const control = tag === "label" ? el.control : null;
      if (control) sig.push("label");
      if (type === "hidden") sig.length = 0;

      // disabled state and why
      let dis = "";
      if (DISABLEABLE.has(tag) && (el.disabled === true || el.matches(":disabled"))) dis = "disabled";
      else if (ariaDisabled) dis = "aria-disabled";
      else if (inert) dis = "inert";
      else if (cursor === "not-allowed" || cursor === "wait") dis = "cursor";

      const n = {k: 1, p: parent, tag, r: [round(x), round(y), round(br.width), round(br.height)], v: visible && shown && !aria, key: keyOf(el)};
      if (tag !== fullTag) n.tc = 1;
      if (attrs.length) n.a = attrs;
      if (n.v && mySoft !== NOCLIP) {
        const c = clipRect(x, y, br.width, br.height, mySoft);
        if (c[2] !== n.r[2] || c[3] !== n.r[3]) n.cr = c;
      }
      if (!rendered) n.h = 1;
      if (aria) n.ah = 1;
      if (sig.length) n.s = sig;
      if (dis) n.d = dis;
      if (frame) n.f = frame;
      if (flags & SHADOW) n.sh = 1;
      if (display !== "contents" && !display.startsWith("inline")) n.b = 1;
      if (control) pendingLabels.push([n, control]);
      if (LABELABLE.has(tag) || tag.includes("-")) elIndex.set(el, index);
      if ((tag === "dialog" && el.open && el.matches(":modal")) ||
          ((known === "dialog" || known === "alertdialog") && ariaModal)) n.m = 1;
      // the top layer's backdrops are hit but have no box of their own
      if ((tag === "dialog" && el.open && el.matches(":modal")) || (el.popover && el.matches(":popover-open"))) hits.risky = true;
      // form state: the live values, not the attributes
      if (tag === "input" || tag === "textarea") {
        if (type === "checkbox" || type === "radio") n.c = el.checked ? 1 : 0;
        else if (!secret && typeof el.value === "string" && el.value !== "") {
          n.val = cut(el.value, attrCap, "values");
          chars += n.val.length;
        }
      }
      if (tag === "select") {
        // the first optionCap labels and selected indices, and the count
        const o = el.options;
        n.on = o.length;
        n.os = [];
        for (let i = 0; i < o.length && i < optionCap; i++) {
          const label = cut((o[i].label || o[i].text || "").trim(), attrCap, "values");
          chars += label.length;
          n.os.push(label);
        }
        n.si = [];
        const sel = el.selectedOptions;
        for (let i = 0; i < sel.length && i < optionCap; i++) n.si.push(sel[i].index);
        if (o.length > optionCap || sel.length > optionCap) capped.add("options");
      }
      // what a locator needs that the record does not otherwise tell
      if (el.namespaceURI !== HTML_NS) n.x = 1;
      if (idAttr !== null && idAttr.length <= attrCap && uniqueID(el, idAttr)) n.u = 1;
      if ((flags & SLOTTED) && hostIndex.has(el.parentNode)) {
        n.lp = hostIndex.get(el.parentNode);
        n.lk = lightPosOf(el);
      }
      if (sig.length || el.shadowRoot || tag === "iframe" || tag === "frame") {
        const k = treeIndex(el);
        if (k) n.ti = k;
      }
      // occlusion, measurable only when the centre of its box is inside
      // the real viewport. It is tested at the point a click lands on,
      // which is also the point the actionable-now probe tests: the
      // centre of the visible part (cut to the viewport without its
      // scroll bars) of its first box fragment that shows at least a
      // pixel each way. A link wrapped over two lines has two fragments,
      // and the centre of its bounding box may lie on another link; the
      // centre of a box cut by the viewport's edge may lie on the edge,
      // where nothing is hit. Tested after the walk, since hit testing
      // between style and layout reads makes every later read slower.
      if (n.v && sig.length) {
        const cx = br.left + br.width / 2, cy = br.top + br.height / 2;
        if (cx >= 0 && cy >= 0 && cx < fvw && cy < fvh) {
          for (const r of el.getClientRects()) {
            const x0 = Math.max(r.left, 0), y0 = Math.max(r.top, 0), x1 = Math.min(r.right, hw), y1 = Math.min(r.bottom, hh);
            if (x1 - x0 >= 1 && y1 - y0 >= 1) {
              occlusion.push([hits, el, n, (x0 + x1) / 2, (y0 + y1) / 2, index]);
              break;
            }
          }
        }
      }
      nodes.push(n);
      domNodes.push(el);

      // what clips the children: this element's box when its overflow is
      // not visible (the root and body scroll the page instead). Only
      // elements that have children to clip are asked, with one read of
      // the overflow shorthand ("x" or "x y").
      let kidHard = myHard, kidSoft = mySoft;
      const overflow = tag === "html" || tag === "body" ||
        (el.firstChild === null && el.shadowRoot === null && tag !== "slot" && tag !== "iframe" && tag !== "frame") ? "visible" : cs.overflow;
      if (overflow !== "visible") {
        const sp = overflow.indexOf(" ");
        const ovx = sp < 0 ? overflow : overflow.slice(0, sp), ovy = sp < 0 ? overflow : overflow.slice(sp + 1);
        if (CLIPS.has(ovx) || CLIPS.has(ovy)) {
          const box = [Math.max(x, mySoft[0]), Math.max(y, mySoft[1]), Math.min(x + br.width, mySoft[2]), Math.min(y + br.height, mySoft[3])];
          kidSoft = box;
          if (!CLIPS.has(ovx) || !CLIPS.has(ovy) || ovx === "hidden" || ovx === "clip" || ovy === "hidden" || ovy === "clip") {
            kidHard = [Math.max(x, myHard[0]), Math.max(y, myHard[1]), Math.min(x + br.width, myHard[2]), Math.min(y + br.height, myHard[3])];
            if (ovx === "auto" || ovx === "scroll") { kidHard[0] = myHard[0]; kidHard[2] = myHard[2]; }
            if (ovy === "auto" || ovy === "scroll") { kidHard[1] = myHard[1]; kidHard[3] = myHard[3]; }
          }
        }
      }

      // children in rendering order: shadow content, slot assignments, frames
      let kidFlags = (rendered ? VISIBLE : 0) | (visible ? SEEN : 0) | (pointer ? POINTER : 0) | (aria ? ARIA : 0) | (inert ? INERT : 0) | (flags & SHADOW);
      let list = null;
      let slotted = 0;
      if (el.shadowRoot) {
        hits.roots.push(el.shadowRoot);
        list = el.shadowRoot.childNodes;
        kidFlags |= SHADOW;
        n.hs = 1;
        hostIndex.set(el, index);
      } else if (tag === "slot") {
        const assigned = el.assignedNodes({flatten: true});
        list = assigned.length ? assigned : el.childNodes;
        if (assigned.length) slotted = SLOTTED;
      } else if (tag === "iframe" || tag === "frame") {
        let fdoc = null;
        try { fdoc = el.contentDocument; } catch (e) { fdoc = null; }
        // the frame's viewport (content box) in page coordinates, and the
        // part of it that ancestors which cannot scroll leave visible
        const fx = x + el.clientLeft, fy = y + el.clientTop, fw = el.clientWidth, fh = el.clientHeight;
        const box = [Math.max(fx, kidHard[0]), Math.max(fy, kidHard[1]), Math.min(fx + fw, kidHard[2]), Math.min(fy + fh, kidHard[3])];
        if (fdoc && fdoc.documentElement) {
          if (rendered) walk(fdoc, index, frame + 1, fx, fy, fw, fh, box, kidFlags & (ARIA | INERT));
        } else if (!fdoc) {
          // cross-origin: captured through its own frame and stitched in
          fxEls.push(el);
          n.fx = fxEls.length;
          if (rendered) {
            n.fb = [round(fx), round(fy), fw, fh];
            n.fc = [round(box[0]), round(box[1]), round(Math.max(0, box[2] - box[0])), round(Math.max(0, box[3] - box[1]))];
          }
        }
      } else {
        list = el.childNodes;
      }
      if (list) {
        for (let i = list.length - 1; i >= 0; i--) {
          sNode.push(list[i]); sParent.push(index); sFlags.push(kidFlags | slotted); sHard.push(kidHard); sSoft.push(kidSoft);
        }
      }
    }
  };

  walk(document, -1, 0, sx, sy, vw, vh, NOCLIP, 0);
  // A walk cut short has not met every input: the secrets of the rest of
  // its documents' inputs (outside shadow roots) are kept too.
  if (truncated) {
    for (const h of docs) {
      for (const el of h.doc.querySelectorAll("input")) {
        const t = (el.type || "").toLowerCase();
        if (t === "password") passwords++;
        if (t === "password" || t === "hidden") {
          keepSecret(t === "password" ? "p" : "h", el.value);
          keepSecret(t === "password" ? "p" : "h", el.getAttribute("value"));
        }
      }
    }
  }
  globalThis.__actionspaceFrames = fxEls;
  globalThis.__actionspaceNodes = domNodes;
  globalThis.__actionspaceSecrets = {values: secrets, passwords};

  // Occlusion. Hit testing costs time in proportion to the whole page, so
  // it is skipped where it cannot find anything else: when no recorded box
  // but the element's own, its ancestors' and its descendants' holds its
  // centre (a hit on those counts as the element's). That needs every
  // painted box recorded: not so after a truncated walk, under a modal's
  // or popover's backdrop, beside fullscreen content, or when a style
  // sheet positions ::before/::after boxes, which have no DOM node.
  const risky = (h) => {
    if (h.checked) return h.risky;
    h.checked = true;
    h.risky = h.risky || exactOcclusion || truncated || !!h.doc.fullscreenElement || pseudoBoxes(h.doc.styleSheets);
    for (const root of h.roots) {
      if (h.risky) break;
      h.risky = pseudoBoxes(root.styleSheets) || pseudoBoxes(root.adoptedStyleSheets || []);
    }
    return h.risky;
  };
  // within reports whether node a is node i or one of its ancestors: the
  // nodes are in pre-order, so a's subtree is the run from a to last[a]
  // (a walk up the parents would cost the depth, for every box).
  let last = null;
  const within = (a, i) => {
    if (!last) {
      last = new Int32Array(nodes.length);
      for (let k = nodes.length - 1; k >= 0; k--) {
        if (last[k] < k) last[k] = k;
        const p = nodes[k].p;
        if (p >= 0 && last[p] < last[k]) last[p] = last[k];
      }
    }
    return a <= i && i <= last[a];
  };
  const alone = (h, index, cx, cy) => {
    const b = h.boxes;
    for (let k = 0; k < b.length; k += 5) {
      if (b[k] <= cx && cx <= b[k + 2] && b[k + 1] <= cy && cy <= b[k + 3]) {
        const owner = b[k + 4];
        if (!within(owner, index) && !within(index, owner)) return false;
      }
    }
    return true;
  };
  for (const [h, el, n, cx, cy, index] of occlusion) {
    if (!risky(h) && alone(h, index, cx, cy)) {
      n.o = 1;
      continue;
    }
    const doc = h.doc;
    const hit = doc.elementFromPoint(cx, cy);
    // a hit inside a shadow root is reported as its host: compare against
    // the outermost host.
    let self = el;
    for (let root = self.getRootNode(); root && root.host; root = self.getRootNode()) self = root.host;
    let ok = !!hit && (hit === self || self.contains(hit) || hit.contains(self));
    if (!ok && hit && el.labels) for (const l of el.labels) if (l === hit || l.contains(hit)) ok = true;
    n.o = ok ? 1 : 0;
  }

  // label → control links were element references; make them node indices.
  for (const [n, control] of pendingLabels) {
    const i = elIndex.get(control);
    if (i !== undefined) n.lc = i;
  }

  const se = document.scrollingElement || document.documentElement;
  const body = document.body;
  const page = {
    url: cut(String(location.href), urlCap, "url"),
    title: cut(String(document.title || ""), titleCap, "title"),
    vw, vh, sx, sy,
    dw: Math.max(se.scrollWidth, document.documentElement.scrollWidth, body ? body.scrollWidth : 0),
    dh: Math.max(se.scrollHeight, document.documentElement.scrollHeight, body ? body.scrollHeight : 0),
    dpr: window.devicePixelRatio,
    quirks: document.compatMode === "BackCompat",
    elements, texts, truncated,
    chars,
    doc: ident.doc,
    frames: fxEls.length,
    time: Date.now(),
    ms: round(performance.now() - t0),
  };
  // the caps hit, in a fixed order
  const hit = ["url", "title", "attributes", "names", "values", "text", "options", "nodes", "chars", "secrets"].filter((c) => capped.has(c));
  if (hit.length) page.capped = hit;
  return JSON.stringify({version: 1, page, nodes});
}
