// The layout audit, run in the page by tests/e2e/audit.py: returns one line per fault it finds.
//
// The rules, for the state the page is in now, at the viewport it has now:
// 1. Nothing scrolls the page sideways (the scrolling element is no wider than the viewport).
// 2. Every visible button, link, field and summary lies within [0, viewport width] as the page and its
//    boxes are scrolled now: no control is reachable only by a sideways scroll. A box that scrolls
//    sideways (overflow-x auto or scroll, wider inside than out) shows that it does: a phone draws no
//    scrollbar, so the element just before the box is a cue of its own (attribute data-scroll-hint), shown.
// 3. Every such control, scrolled to the middle of the viewport (the box it scrolls in too), is the
//    element found at its centre, or holds it, or is its label's control: nothing covers it
//    (a sticky header or bottom tray included). While a popover or modal dialog is open, only the
//    controls inside it are checked: it covers the page on purpose.
// 4. No element that hides its overflow cuts its text short sideways without an ellipsis.
// 5. No word of a given name is broken across two lines (each word's Range has its rects on one line).
// Elements drawn for screen readers only (clipped to a pixel) are left out; so is a skip link.
async (names) => {
  await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
  const faults = [];
  const width = window.innerWidth;
  const height = window.innerHeight;
  const scroller = document.scrollingElement;
  const saved = { x: scroller.scrollLeft, y: scroller.scrollTop };
  const savedBoxes = new Map();

  const describe = (el) => {
    const r = el.getBoundingClientRect();
    const text = (el.getAttribute("aria-label") || el.innerText || el.value || el.getAttribute("name") || "")
      .replace(/\s+/g, " ").trim().slice(0, 50);
    const classes = typeof el.className === "string" && el.className.trim()
      ? "." + el.className.trim().split(/\s+/).join(".") : "";
    const id = el.id ? `#${el.id}` : "";
    return `<${el.tagName.toLowerCase()}${id}${classes}> "${text}" at x=${Math.round(r.left)}..${Math.round(r.right)}`;
  };
  const screenReaderOnly = (el) => {
    for (let node = el; node && node !== document.body; node = node.parentElement) {
      const s = getComputedStyle(node);
      if ((s.clipPath && s.clipPath.startsWith("inset(50%")) || (s.clip && s.clip.startsWith("rect(0"))) return true;
    }
    const r = el.getBoundingClientRect();
    return r.width <= 1 || r.height <= 1;
  };
  const visible = (el) => el.checkVisibility({ opacityProperty: false, visibilityProperty: true }) && !screenReaderOnly(el);
  const scrollsSideways = (el) => {
    const s = getComputedStyle(el);
    return ["auto", "scroll"].includes(s.overflowX) && el.scrollWidth > el.clientWidth + 1;
  };
  const sidewaysBox = (el) => {
    for (let node = el.parentElement; node && node !== document.body && node !== document.documentElement; node = node.parentElement) {
      if (scrollsSideways(node)) return node;
    }
    return null;
  };

  // 1. The page itself
  if (scroller.scrollWidth > width + 1) {
    const wide = [...document.body.querySelectorAll("*")].filter((el) => {
      const r = el.getBoundingClientRect();
      return r.right > width + 1 && visible(el) && !sidewaysBox(el);
    });
    // The outermost of them says where it starts.
    const outer = wide.filter((el) => !wide.some((other) => other !== el && other.contains(el)));
    faults.push(`page scrolls sideways: ${scroller.scrollWidth} px wide in a ${width} px viewport`
      + (outer.length ? `; wider than the viewport: ${outer.slice(0, 5).map(describe).join("; ")}` : ""));
  }

  // 2 and 3. The controls; while a popover or a modal dialog is open, those in it (the page behind
  // it is covered on purpose).
  const layer = document.querySelector(":popover-open, dialog:modal");
  for (const box of document.body.querySelectorAll("*")) {
    if (!scrollsSideways(box) || !visible(box)) continue;
    const cue = box.previousElementSibling;
    if (!cue || !cue.hasAttribute("data-scroll-hint") || !visible(cue)) {
      faults.push(`scrolls sideways with no cue that it does: ${describe(box)}`);
    }
  }
  const controls = [...document.querySelectorAll(
    "button, a[href], input:not([type=hidden]), select, textarea, summary, [role=button], [tabindex]:not([tabindex='-1'])",
  )].filter((el) => visible(el) && !el.classList.contains("skip-link") && (!layer || layer.contains(el)));
  for (const el of controls) {
    const box = sidewaysBox(el);
    const r = el.getBoundingClientRect();
    if (r.left < -1 || r.right > width + 1) {
      faults.push(`outside the viewport's width (0..${width}): ${describe(el)}`
        + (box ? `, reachable only by scrolling sideways: ${describe(box)}` : ""));
      continue;
    }
    if (box && !savedBoxes.has(box)) savedBoxes.set(box, box.scrollLeft);
    el.scrollIntoView({ block: "center", inline: "nearest", behavior: "instant" });
    if (scroller.scrollLeft) scroller.scrollLeft = 0;
    // A link that wraps is two boxes: the largest of them is where a finger goes.
    const boxes = [...el.getClientRects()];
    const s = boxes.length ? boxes.reduce((a, b) => (b.width * b.height > a.width * a.height ? b : a)) : r;
    const left = Math.max(s.left, 0), right = Math.min(s.right, width);
    const top = Math.max(s.top, 0), bottom = Math.min(s.bottom, height);
    if (right <= left || bottom <= top) {
      faults.push(`cannot be scrolled into view: ${describe(el)}`);
      continue;
    }
    const hit = document.elementFromPoint((left + right) / 2, (top + bottom) / 2);
    // A disabled control takes no taps (pointer-events: none), so the point finds what lies under
    // it: its own box or row is no cover. The audit writes nothing to the page (not even a style).
    const inert = getComputedStyle(el).pointerEvents === "none";
    const reaches = hit && (hit === el || el.contains(hit) || (inert && hit.contains(el)) || (hit.control && hit.control === el)
      || (el.labels && [...el.labels].some((label) => label === hit || label.contains(hit))));
    if (!reaches) {
      faults.push(`covered: ${describe(el)} lies under ${hit ? describe(hit) : "nothing"}`);
    }
  }

  // 4. Text cut short without an ellipsis
  for (const el of document.body.querySelectorAll("*")) {
    const s = getComputedStyle(el);
    if (!["hidden", "clip"].includes(s.overflowX) || el.scrollWidth <= el.clientWidth + 1) continue;
    if (s.textOverflow === "ellipsis" || !visible(el)) continue;
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    const bounds = el.getBoundingClientRect();
    let cut = null;
    for (let node = walker.nextNode(); node && !cut; node = walker.nextNode()) {
      if (!node.textContent.trim() || !node.parentElement.checkVisibility()) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      const t = range.getBoundingClientRect();
      if (t.width && (t.right > bounds.right + 1 || t.left < bounds.left - 1)) cut = node.textContent.trim();
    }
    if (cut) faults.push(`text cut short without an ellipsis: "${cut.slice(0, 50)}" in ${describe(el)}`);
  }

  // 5. Names broken inside a word
  const words = [...new Set(names.flatMap((name) => name.split(/\s+/)).filter((word) => word.length > 1))];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || !parent.checkVisibility() || screenReaderOnly(parent)) continue;
    for (const word of words) {
      for (let at = node.textContent.indexOf(word); at >= 0; at = node.textContent.indexOf(word, at + 1)) {
        const range = document.createRange();
        range.setStart(node, at);
        range.setEnd(node, at + word.length);
        const lines = new Set([...range.getClientRects()].filter((q) => q.width > 0).map((q) => Math.round(q.top)));
        if (lines.size > 1) faults.push(`name broken inside the word "${word}" over ${lines.size} lines in ${describe(parent)}`);
      }
    }
  }

  for (const [box, left] of savedBoxes) box.scrollLeft = left;
  scroller.scrollTo({ left: saved.x, top: saved.y, behavior: "instant" });
  return [...new Set(faults)];
}
