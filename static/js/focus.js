// A keyboard's focus kept where htmx redraws it (see below).
import { keepClear } from "./app.js";

// The focus where htmx drew over it, on the pages that redraw a focused control (where rounds are entered, the
// club's): imported by offline.js and club.js, not in the shared bundle every first load pays for. A redrawn button
// (a loser's, "Draw 5") or a polled part's link took the focus with it to the page's start: the next Tab began
// again at the top, and a screen reader lost its place. It goes back to the same control in what was drawn (by its
// id, its name and value, its link, else its words and place), else, for a keyboard, to the first field a refusal
// marks or to the part drawn. A touch never has a field focused for it: that would open a phone's keyboard.
var keyboard = false;
var kept = false;
var focusWas = null;
function focusKey(element) {
  var tag = element.tagName.toLowerCase();
  var named = element.name ? '[name="' + CSS.escape(element.name) + '"]' : "";
  var valued = named && /^(button|radio|checkbox|submit)$/.test(element.type) ? '[value="' + CSS.escape(element.value) + '"]' : "";
  var href = element.getAttribute("href");
  if (element.id) return { selector: "#" + CSS.escape(element.id), words: null };
  if (named) return { selector: tag + named + valued, words: null };
  if (href) return { selector: tag + '[href="' + CSS.escape(href) + '"]', words: null };
  return { selector: tag, words: element.textContent.trim() };
}
function sameControls(scope, key) {
  return Array.from((scope || document).querySelectorAll(key.selector)).filter(function (found) {
    return key.words === null || found.textContent.trim() === key.words;
  });
}
// A form's Save is disabled while it is sent (hx-disabled-elt), which takes the focus off it before the answer.
var focusSending = new WeakMap();
function focusOn(element) {
  if (!element.matches("a[href], button, input, select, textarea, summary, [tabindex]")) element.tabIndex = -1;
  element.focus({ preventScroll: !keyboard });
}
// Called by the scripts of the pages that redraw a focused control; its listeners are set once a page.
export function keepFocus() {
  if (kept) return;
  kept = true;
  document.addEventListener("keydown", function (event) {
    if (!event.altKey && !event.ctrlKey && !event.metaKey) keyboard = true;
  }, true);
  document.addEventListener("pointerdown", function () { keyboard = false; }, true);
  // A keyboard's focus is kept clear of what sticks over the page: the read-back line above, a keypad's tray below
  // (what stands in them is where it is).
  document.addEventListener("focusin", function (event) {
    var target = event.target;
    if (keyboard && target.closest && !target.closest("[data-covers-bottom], .banner-slot")) keepClear(target);
  });
  document.addEventListener("htmx:beforeRequest", function (event) {
    var active = document.activeElement;
    if (active && active !== document.body && event.detail.elt.contains(active)) focusSending.set(event.detail.xhr, active);
  });
  document.addEventListener("htmx:beforeSwap", function (event) {
    var active = document.activeElement;
    if (!active || active === document.body) active = focusSending.get(event.detail.xhr);
    focusWas = null;
    if (!active || !event.detail.shouldSwap) return;
    var key = focusKey(active);
    var scope = active.parentElement && active.parentElement.closest("[id]");
    focusWas = { key: key, scope: scope && scope.id, place: sameControls(scope, key).indexOf(active),
                 target: event.detail.target && event.detail.target.id, boosted: event.detail.boosted,
                 sent: focusSending.get(event.detail.xhr) === active };
  });
  document.addEventListener("htmx:afterSettle", function () {
    var was = focusWas;
    focusWas = null;
    if (!was || was.boosted || (document.activeElement && document.activeElement !== document.body)) return;
    var drawn = was.target ? document.getElementById(was.target) : null;
    var refused = keyboard && was.sent && drawn && drawn.querySelector('[aria-invalid="true"]');
    if (refused) {
      focusOn(refused);
      return;
    }
    var scope = was.scope ? document.getElementById(was.scope) : null;
    var same = sameControls(scope, was.key).filter(function (found) { return found.getClientRects().length; });
    var back = same[Math.max(0, Math.min(was.place, same.length - 1))];
    if (back && (keyboard || !back.matches("input:not([type=radio]):not([type=checkbox]), textarea, select"))) {
      focusOn(back);
    } else if (keyboard && drawn) {
      focusOn(drawn);
    }
  });
}
