/**
 * Scripts the browser tools run inside the page (`page.evaluate`), kept as JavaScript source so
 * nothing from this program's build (helpers, module wrappers) leaks into them. Each is one
 * function expression taking one JSON argument. What they return is page-controlled data: the
 * callers check its shape and treat it as untrusted text.
 */
import { REF_ATTRIBUTE } from "./refs.js";

/** Most elements one snapshot walks; the rest of a huge page is left out (and said so). */
export const SNAPSHOT_MAX_ELEMENTS = 20_000;

/**
 * The accessibility-tree walk behind `browser_snapshot`: clears the previous snapshot's refs,
 * walks the visible DOM (open shadow roots and slots included, iframes shown but not entered),
 * computes each element's role, name and state the way ARIA does in the common cases, numbers the
 * interactive elements, headings and clickable containers `e1`, `e2`… in document order (setting
 * `data-hermes-ref`), and returns `{ children, refs, truncated }` in the `SnapshotNode` shape.
 * Generic containers are flattened into their parent; adjacent text is merged, with block
 * boundaries kept.
 */
export const SNAPSHOT_SCRIPT = `(options) => {
  const REF = ${JSON.stringify(REF_ATTRIBUTE)};
  const MAX = options.maxElements;
  const TEXT_CAP = 2000;
  const BREAK = { br: true };
  let elements = 0;
  let refs = 0;
  let truncated = false;
  for (const el of document.querySelectorAll("[" + REF + "]")) el.removeAttribute(REF);
  const INTERACTIVE = new Set(["button", "link", "textbox", "searchbox", "checkbox", "radio", "combobox", "listbox", "option", "slider", "spinbutton", "switch", "tab", "menuitem", "menuitemcheckbox", "menuitemradio", "treeitem"]);
  const NAME_FROM_CONTENT = new Set(["button", "link", "heading", "checkbox", "radio", "menuitem", "menuitemcheckbox", "menuitemradio", "option", "switch", "tab", "treeitem", "tooltip", "cell", "columnheader", "rowheader", "caption", "legend"]);
  const SKIP = new Set(["script", "style", "noscript", "template", "head", "meta", "link", "title", "base"]);
  const INTERACTIVE_SELECTOR = "a[href],button,input,select,textarea,[role=button],[role=link],[role=checkbox],[role=radio],[role=tab],[role=menuitem],[role=option],[role=switch],[role=textbox],[contenteditable=''],[contenteditable=true],[onclick]";
  const clean = (text) => String(text || "").replace(/\\s+/g, " ");
  const short = (text, n) => { const t = clean(text).trim(); return t.length > n ? t.slice(0, n - 1) + "\\u2026" : t; };
  const textOf = (el) => short((el.innerText !== undefined ? el.innerText : el.textContent) || "", 500);
  const inSectioning = (el) => !!el.parentElement && !!el.parentElement.closest("article,aside,main,nav,section");
  const inputType = (el) => (el.getAttribute("type") || "text").toLowerCase();

  function implicitRole(el) {
    const tag = el.localName;
    if (/^h[1-6]$/.test(tag)) return "heading";
    switch (tag) {
      case "a": case "area": return el.hasAttribute("href") ? "link" : null;
      case "button": case "summary": return "button";
      case "input": {
        const type = inputType(el);
        if (["button", "submit", "reset", "image", "file"].includes(type)) return "button";
        if (type === "checkbox") return "checkbox";
        if (type === "radio") return "radio";
        if (type === "range") return "slider";
        if (type === "number") return "spinbutton";
        if (type === "search") return el.hasAttribute("list") ? "combobox" : "searchbox";
        return el.hasAttribute("list") ? "combobox" : "textbox";
      }
      case "textarea": return "textbox";
      case "select": return el.multiple || el.size > 1 ? "listbox" : "combobox";
      case "option": return "option";
      case "img": return el.getAttribute("alt") === "" && !el.hasAttribute("aria-label") ? null : "img";
      case "svg": return el.hasAttribute("aria-label") || el.querySelector(":scope > title") ? "img" : "none-svg";
      case "nav": return "navigation";
      case "main": return "main";
      case "aside": return "complementary";
      case "header": return inSectioning(el) ? null : "banner";
      case "footer": return inSectioning(el) ? null : "contentinfo";
      case "form": return "form";
      case "section": return el.hasAttribute("aria-label") || el.hasAttribute("aria-labelledby") ? "region" : null;
      case "article": return "article";
      case "ul": case "ol": case "menu": return "list";
      case "li": return "listitem";
      case "table": return "table";
      case "tr": return "row";
      case "th": return el.getAttribute("scope") === "row" ? "rowheader" : "columnheader";
      case "td": return "cell";
      case "p": return "paragraph";
      case "blockquote": return "blockquote";
      case "dialog": return "dialog";
      case "hr": return "separator";
      case "progress": return "progressbar";
      case "meter": return "meter";
      case "fieldset": case "details": return "group";
      case "legend": return "legend";
      case "caption": return "caption";
      case "figure": return "figure";
      case "iframe": return "iframe";
      case "output": return "status";
      default: return null;
    }
  }

  function roleOf(el) {
    const explicit = (el.getAttribute("role") || "").trim().split(/\\s+/)[0];
    if (explicit && explicit !== "none" && explicit !== "presentation" && explicit !== "generic") return explicit.toLowerCase();
    if (explicit) return null;
    if (el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) return "textbox";
    return implicitRole(el);
  }

  /** A label's text without the controls inside it (a wrapping label names its control, not its options). */
  function labelText(label, control) {
    if (!label.contains(control)) return textOf(label);
    const copy = label.cloneNode(true);
    for (const inner of copy.querySelectorAll("input,select,textarea,button")) inner.remove();
    return short(copy.textContent || "", 500);
  }

  function nameOf(el, role, descend) {
    const labelledBy = el.getAttribute("aria-labelledby");
    if (labelledBy) {
      const text = labelledBy.split(/\\s+/).map((id) => document.getElementById(id)).filter(Boolean).map(textOf).join(" ").trim();
      if (text) return text;
    }
    const label = el.getAttribute("aria-label");
    if (label && label.trim()) return short(label, 500);
    const tag = el.localName;
    if (tag === "input" || tag === "textarea" || tag === "select") {
      const type = inputType(el);
      if (tag === "input" && ["button", "submit", "reset"].includes(type)) return el.value || (type === "submit" ? "Submit" : type === "reset" ? "Reset" : "");
      if (tag === "input" && type === "image") return el.getAttribute("alt") || el.value || "Submit";
      if (el.labels && el.labels.length) {
        const text = Array.from(el.labels).map((label) => labelText(label, el)).join(" ").trim();
        if (text) return text;
      }
      return short(el.getAttribute("placeholder") || el.getAttribute("title") || "", 500);
    }
    if (tag === "img" || tag === "area") return short(el.getAttribute("alt") || el.getAttribute("title") || "", 500);
    if (tag === "svg") { const title = el.querySelector(":scope > title"); return title ? textOf(title) : ""; }
    if (tag === "fieldset") { const legend = el.querySelector(":scope > legend"); if (legend) return textOf(legend); }
    if (tag === "table") { const caption = el.querySelector(":scope > caption"); if (caption) return textOf(caption); }
    if (tag === "iframe") return short(el.getAttribute("title") || el.getAttribute("name") || "", 200);
    if (role && NAME_FROM_CONTENT.has(role) && !descend) return textOf(el);
    return short(el.getAttribute("title") || "", 500);
  }

  function valueOf(el, role) {
    const tag = el.localName;
    if (tag === "select") return Array.from(el.selectedOptions || []).map((o) => clean(o.textContent).trim()).join(", ");
    if (tag === "input" && ["checkbox", "radio", "button", "submit", "reset", "image", "file"].includes(inputType(el))) return undefined;
    if (tag === "input" || tag === "textarea") {
      if (!el.value) return undefined;
      return inputType(el) === "password" ? "\\u2022\\u2022\\u2022\\u2022" : el.value.slice(0, TEXT_CAP);
    }
    if (role === "textbox" && el.isContentEditable) return short(el.innerText, TEXT_CAP) || undefined;
    const now = el.getAttribute("aria-valuenow");
    if (now !== null) return el.getAttribute("aria-valuetext") || now;
    return undefined;
  }

  function tristate(value) {
    if (value === "true") return true;
    if (value === "mixed") return "mixed";
    if (value === "false") return false;
    return undefined;
  }

  function stateOf(el, role, node) {
    const tag = el.localName;
    if (role === "heading") node.level = Number(el.getAttribute("aria-level")) || Number(tag.slice(1)) || 2;
    if (tag === "input" && ["checkbox", "radio"].includes(inputType(el))) node.checked = el.indeterminate ? "mixed" : el.checked;
    else if (el.hasAttribute("aria-checked")) node.checked = tristate(el.getAttribute("aria-checked"));
    if (node.checked === false) delete node.checked;
    const pressed = tristate(el.getAttribute("aria-pressed"));
    if (pressed) node.pressed = pressed;
    if ((el.matches && el.matches(":disabled")) || el.getAttribute("aria-disabled") === "true") node.disabled = true;
    const expanded = el.getAttribute("aria-expanded");
    if (expanded === "true" || expanded === "false") node.expanded = expanded === "true";
    else if (tag === "details") node.expanded = el.open;
    if ((tag === "option" && el.selected) || el.getAttribute("aria-selected") === "true") node.selected = true;
    if (el.required || el.getAttribute("aria-required") === "true") node.required = true;
    if (role === "link" && el.href) node.url = String(el.href).slice(0, TEXT_CAP);
  }

  function childNodesOf(el) {
    if (el.shadowRoot) return el.shadowRoot.childNodes;
    if (el.localName === "slot") { const assigned = el.assignedNodes({ flatten: true }); if (assigned.length) return assigned; }
    return el.childNodes;
  }

  function normalize(items) {
    const out = [];
    let text = null;
    const flush = () => { if (text !== null && text.trim()) out.push(text.trim().slice(0, TEXT_CAP)); text = null; };
    for (const item of items) {
      if (typeof item === "string") text = (text || "") + item;
      else if (item === BREAK) flush();
      else { flush(); out.push(item); }
    }
    flush();
    return out;
  }

  function walk(parent, out, ctx) {
    for (const child of childNodesOf(parent)) {
      if (truncated) return;
      if (child.nodeType === 3) { const text = clean(child.data); if (text.trim()) out.push(text); continue; }
      if (child.nodeType !== 1) continue;
      visit(child, out, ctx);
    }
  }

  function visit(el, out, ctx) {
    const tag = el.localName;
    if (SKIP.has(tag)) return;
    if (++elements > MAX) { truncated = true; return; }
    el.removeAttribute(REF);
    if (el.getAttribute("aria-hidden") === "true" || el.hidden) return;
    if (tag === "input" && inputType(el) === "hidden") return;
    const style = getComputedStyle(el);
    if (style.display === "none" || style.visibility === "hidden" || style.visibility === "collapse") return;
    if (style.display !== "contents" && typeof el.checkVisibility === "function" && !el.checkVisibility()) return;
    let role = roleOf(el);
    if (role === "none-svg") return;
    const pointer = style.cursor === "pointer";
    const inline = style.display.startsWith("inline") || style.display === "contents";
    const clickable = !role && !ctx.interactive && ((pointer && !ctx.pointer) || el.hasAttribute("onclick") || (el.hasAttribute("tabindex") && Number(el.getAttribute("tabindex")) >= 0));
    if (clickable) role = "generic";
    const next = { interactive: ctx.interactive || (role !== null && INTERACTIVE.has(role)) || clickable, pointer: pointer };
    if (!role) {
      if (!inline) out.push(BREAK);
      walk(el, out, next);
      if (!inline) out.push(BREAK);
      return;
    }
    const node = { role: role };
    const descend = role === "iframe" ? false : !NAME_FROM_CONTENT.has(role) && !clickable ? true : !!el.querySelector(INTERACTIVE_SELECTOR);
    const name = nameOf(el, role, descend);
    if (name) node.name = name;
    else if (clickable) { const text = textOf(el); if (text) node.name = short(text, 100); }
    const value = valueOf(el, role);
    if (value) node.value = value;
    stateOf(el, role, node);
    const native = tag === "option" && el.parentElement && ["select", "optgroup", "datalist"].includes(el.parentElement.localName);
    if ((INTERACTIVE.has(role) && !native) || role === "heading" || clickable) {
      node.ref = "e" + ++refs;
      el.setAttribute(REF, node.ref);
    }
    if (tag === "select") {
      const options = Array.from(el.options).slice(0, 200).map((o) => {
        const option = { role: "option", name: short(o.label || o.textContent, 200) };
        if (o.selected) option.selected = true;
        if (o.disabled) option.disabled = true;
        return option;
      });
      if (options.length) node.children = options;
    } else if (descend && role !== "img") {
      const children = [];
      walk(el, children, next);
      const items = normalize(children);
      if (items.length) node.children = items;
    }
    if (!inline) out.push(BREAK);
    out.push(node);
    if (!inline) out.push(BREAK);
  }

  const top = [];
  if (document.body) walk(document.body, top, { interactive: false, pointer: false });
  return { children: normalize(top), refs: refs, truncated: truncated };
}`;

/** The page's images (Hermes' `browser_get_images`): `{src, alt, width, height}`, data: URLs left out, at most `max`. */
export const IMAGES_SCRIPT = `(max) => {
  const all = Array.from(document.images).map((img) => ({ src: img.currentSrc || img.src, alt: img.alt || "", width: img.naturalWidth, height: img.naturalHeight }))
    .filter((img) => img.src && !img.src.startsWith("data:"));
  return { images: all.slice(0, max), total: all.length };
}`;

/**
 * Draws a numbered `[N]` label over every element of the last snapshot (`@eN`), for an annotated
 * screenshot; returns `{ref, label, role, name}` per label. `ANNOTATION_CLEAR_SCRIPT` removes them.
 */
export const ANNOTATE_SCRIPT = `() => {
  const REF = ${JSON.stringify(REF_ATTRIBUTE)};
  const layer = document.createElement("div");
  layer.id = "__hermes_annotations";
  layer.style.cssText = "position:absolute;left:0;top:0;width:0;height:0;z-index:2147483647;pointer-events:none";
  const labels = [];
  for (const el of document.querySelectorAll("[" + REF + "]")) {
    const box = el.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) continue;
    const ref = el.getAttribute(REF);
    const tag = document.createElement("div");
    tag.textContent = "[" + ref.slice(1) + "]";
    tag.style.cssText = "position:absolute;font:bold 11px/13px monospace;background:#ffd400;color:#000;border:1px solid #000;padding:0 2px;white-space:nowrap";
    tag.style.left = Math.max(0, box.left + window.scrollX) + "px";
    tag.style.top = Math.max(0, box.top + window.scrollY - 14) + "px";
    layer.appendChild(tag);
    labels.push({ ref: "@" + ref, label: tag.textContent, tag: el.localName, text: String(el.innerText || el.getAttribute("aria-label") || "").replace(/\\s+/g, " ").trim().slice(0, 80) });
  }
  document.documentElement.appendChild(layer);
  return labels;
}`;

export const ANNOTATION_CLEAR_SCRIPT = `() => { const layer = document.getElementById("__hermes_annotations"); if (layer) layer.remove(); }`;
