// actionspace capture script. Evaluated once per page (in an isolated world),
// it walks the rendered DOM and returns a JSON string: the page geometry and
// one flat, pre-order list of element and text nodes. Which elements get IDs
// for a given viewport_expansion is decided later, in Go, from this record.
//
// The script is one function expression taking an options object:
//   {maxNodes, attrCap, textCap, optionCap}
// Field names of the record are documented on dom.Node and dom.PageInfo.
(opts) => {
  const t0 = performance.now();
  const maxNodes = (opts && opts.maxNodes) || 200000;
  const attrCap = (opts && opts.attrCap) || 200;
  const textCap = (opts && opts.textCap) || 2000;
  const optionCap = (opts && opts.optionCap) || 50;

  const SKIP = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "HEAD", "META", "LINK", "BASE", "TITLE"]);
  const FORM_TAGS = new Set(["button", "input", "select", "textarea", "summary", "option"]);
  const DISABLEABLE = new Set(["button", "input", "select", "textarea", "option", "optgroup", "fieldset"]);
  const ROLES = new Set(["button", "link", "checkbox", "radio", "switch", "tab", "menuitem",
    "menuitemcheckbox", "menuitemradio", "option", "textbox", "searchbox", "combobox", "listbox",
    "slider", "spinbutton", "treeitem"]);
  const HANDLERS = new Set(["onclick", "onmousedown", "onmouseup", "ondblclick", "onkeydown"]);
  const CLIPS = new Set(["hidden", "clip", "auto", "scroll"]);
  const INF = 1e9;

  const vw = window.innerWidth, vh = window.innerHeight;
  const sx = window.scrollX, sy = window.scrollY;
  const nodes = [];
  const elIndex = new Map();
  const pendingLabels = [];
  const occlusion = [];
  let truncated = false;
  let elements = 0, texts = 0;

  const round = (v) => Math.round(v * 100) / 100;
  // clipRect intersects a page-coordinate rect with a clip box [l, t, r, b].
  const clipRect = (x, y, w, h, c) => {
    const l = Math.max(x, c[0]), t = Math.max(y, c[1]);
    const r = Math.min(x + w, c[2]), b = Math.min(y + h, c[3]);
    return r > l && b > t ? [round(l), round(t), round(r - l), round(b - t)] : [round(l), round(t), 0, 0];
  };
  const NOCLIP = [-INF, -INF, INF, INF];

  // walk visits one document (the top one or a same-origin frame's), whose
  // viewport origin sits at (ox, oy) in top-page coordinates; clip0 bounds
  // what of it can show (a frame's box).
  const walk = (doc, rootParent, frame, ox, oy, fvw, fvh, clip0) => {
    const win = doc.defaultView;
    const range = doc.createRange();
    // flag bits of a stack entry: what the parent passes down
    const POINTER = 1, VISIBLE = 2, SHADOW = 4, ARIA = 8, INERT = 16, SEEN = 32;
    // One stack entry per pending node, as parallel arrays:
    // node, parent index, flags, hard clip, soft clip.
    const sNode = [doc.documentElement], sParent = [rootParent], sFlags = [VISIBLE | SEEN], sHard = [clip0], sSoft = [clip0];
    while (sNode.length) {
      const node = sNode.pop(), parent = sParent.pop(), flags = sFlags.pop(), hard = sHard.pop(), soft = sSoft.pop();
      if (!node) continue;
      if (nodes.length >= maxNodes) { truncated = true; break; }
      if (node.nodeType === 3) {
        const raw = node.nodeValue;
        if (!raw || !raw.trim()) continue;
        const n = {k: 3, p: parent, t: raw.length > textCap ? raw.slice(0, textCap) : raw, r: [0, 0, 0, 0], v: false};
        if ((flags & VISIBLE) && (flags & SEEN)) {
          range.selectNodeContents(node);
          const br = range.getBoundingClientRect();
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
        continue;
      }
      if (node.nodeType !== 1 || SKIP.has(node.nodeName)) continue;
      const el = node;
      const tag = el.localName;
      const cs = win.getComputedStyle(el);
      const display = cs.display, cursor = cs.cursor;
      const br = el.getBoundingClientRect();
      const index = nodes.length;
      elements++;

      // one pass over the attributes: record them (capped) and read the
      // ones the rules need. Password values never leave the page.
      const isPassword = tag === "input" && (el.type || "").toLowerCase() === "password";
      const attrs = [];
      let roleAttr = null, tabindex = null, handler = false, ariaHidden = false, ariaDisabled = false,
        ariaModal = false, hasPopup = false, href = false, typeAttr = null;
      for (const a of el.attributes) {
        const name = a.name, value = a.value;
        if (isPassword && name === "value") continue;
        attrs.push([name, value.length > attrCap ? value.slice(0, attrCap) : value]);
        switch (name) {
          case "role": roleAttr = value; break;
          case "tabindex": tabindex = value; break;
          case "aria-hidden": ariaHidden = value === "true"; break;
          case "aria-disabled": ariaDisabled = value === "true"; break;
          case "aria-modal": ariaModal = value === "true"; break;
          case "aria-haspopup": hasPopup = value !== "false"; break;
          case "href": href = true; break;
          case "type": typeAttr = value.toLowerCase(); break;
          default: if (HANDLERS.has(name)) handler = true;
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
      const fixed = cs.position === "fixed";
      const myHard = fixed ? clip0 : hard, mySoft = fixed ? clip0 : soft;
      const shown = br.width > 0 && br.height > 0 && clipRect(x, y, br.width, br.height, myHard)[2] > 0;

      // interactivity signals
      const sig = [];
      const type = tag === "input" ? (typeAttr || "text") : "";
      if ((tag === "a" || tag === "area") && href) sig.push("tag");
      else if (tag === "details") { if (!el.querySelector(":scope > summary")) sig.push("tag"); }
      else if (FORM_TAGS.has(tag)) sig.push("tag");
      if (el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) sig.push("editable");
      let role = "";
      if (roleAttr) {
        for (const tok of roleAttr.trim().toLowerCase().split(/\s+/)) {
          if (ROLES.has(tok) || (tok === "gridcell" && el.tabIndex >= 0)) { role = tok; break; }
        }
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

      const n = {k: 1, p: parent, tag, r: [round(x), round(y), round(br.width), round(br.height)], v: visible && shown && !aria};
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
      elIndex.set(el, index);
      if ((tag === "dialog" && el.open && el.matches(":modal")) ||
          ((role === "" && roleAttr && /(^|\s)(alert)?dialog(\s|$)/i.test(roleAttr)) && ariaModal)) n.m = 1;
      // form state: the live values, not the attributes
      if (tag === "input" || tag === "textarea") {
        if (type === "checkbox" || type === "radio") n.c = el.checked ? 1 : 0;
        else if (!isPassword && typeof el.value === "string" && el.value !== "") n.val = el.value.slice(0, attrCap);
      }
      if (tag === "select") {
        const o = el.options;
        n.on = o.length;
        n.os = [];
        for (let i = 0; i < o.length && i < optionCap; i++) n.os.push((o[i].label || o[i].text || "").trim().slice(0, attrCap));
        n.si = [];
        for (let i = 0; i < o.length; i++) if (o[i].selected) n.si.push(i);
      }
      // occlusion, measurable only when the centre is inside the real
      // viewport; tested after the walk, since hit testing between style
      // and layout reads makes every later read slower.
      if (n.v && sig.length) {
        const cx = br.left + br.width / 2, cy = br.top + br.height / 2;
        if (cx >= 0 && cy >= 0 && cx < fvw && cy < fvh) occlusion.push([doc, el, n, cx, cy]);
      }
      nodes.push(n);

      // what clips the children: this element's box when its overflow is
      // not visible (the root and body scroll the page instead)
      let kidHard = myHard, kidSoft = mySoft;
      if (tag !== "html" && tag !== "body" && (CLIPS.has(cs.overflowX) || CLIPS.has(cs.overflowY))) {
        const box = [Math.max(x, mySoft[0]), Math.max(y, mySoft[1]), Math.min(x + br.width, mySoft[2]), Math.min(y + br.height, mySoft[3])];
        kidSoft = box;
        if (!CLIPS.has(cs.overflowX) || !CLIPS.has(cs.overflowY) || cs.overflowX === "hidden" || cs.overflowX === "clip" ||
            cs.overflowY === "hidden" || cs.overflowY === "clip") {
          kidHard = [Math.max(x, myHard[0]), Math.max(y, myHard[1]), Math.min(x + br.width, myHard[2]), Math.min(y + br.height, myHard[3])];
          if (cs.overflowX === "auto" || cs.overflowX === "scroll") { kidHard[0] = myHard[0]; kidHard[2] = myHard[2]; }
          if (cs.overflowY === "auto" || cs.overflowY === "scroll") { kidHard[1] = myHard[1]; kidHard[3] = myHard[3]; }
        }
      }

      // children in rendering order: shadow content, slot assignments, frames
      let kidFlags = (rendered ? VISIBLE : 0) | (visible ? SEEN : 0) | (pointer ? POINTER : 0) | (aria ? ARIA : 0) | (inert ? INERT : 0) | (flags & SHADOW);
      let list = null;
      if (el.shadowRoot) {
        list = el.shadowRoot.childNodes;
        kidFlags |= SHADOW;
      } else if (tag === "slot") {
        const assigned = el.assignedNodes({flatten: true});
        list = assigned.length ? assigned : el.childNodes;
      } else if (tag === "iframe" || tag === "frame") {
        let fdoc = null;
        try { fdoc = el.contentDocument; } catch (e) { fdoc = null; }
        if (fdoc && fdoc.documentElement && rendered) {
          const fx = x + el.clientLeft, fy = y + el.clientTop;
          const box = [Math.max(fx, kidHard[0]), Math.max(fy, kidHard[1]),
            Math.min(fx + el.clientWidth, kidHard[2]), Math.min(fy + el.clientHeight, kidHard[3])];
          walk(fdoc, index, frame + 1, fx, fy, el.clientWidth, el.clientHeight, box);
        } else if (!fdoc) {
          n.fx = 1; // cross-origin: captured through its own frame
        }
      } else {
        list = el.childNodes;
      }
      if (list) {
        for (let i = list.length - 1; i >= 0; i--) {
          sNode.push(list[i]); sParent.push(index); sFlags.push(kidFlags); sHard.push(kidHard); sSoft.push(kidSoft);
        }
      }
    }
  };

  walk(document, -1, 0, sx, sy, vw, vh, NOCLIP);

  for (const [doc, el, n, cx, cy] of occlusion) {
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
    url: String(location.href),
    title: String(document.title || ""),
    vw, vh, sx, sy,
    dw: Math.max(se.scrollWidth, document.documentElement.scrollWidth, body ? body.scrollWidth : 0),
    dh: Math.max(se.scrollHeight, document.documentElement.scrollHeight, body ? body.scrollHeight : 0),
    dpr: window.devicePixelRatio,
    quirks: document.compatMode === "BackCompat",
    elements, texts, truncated,
    time: Date.now(),
    ms: round(performance.now() - t0),
  };
  return JSON.stringify({version: 1, page, nodes});
}
