// The turn's clock (_clock.html) shows the server's time left, whatever the phone's own clock says: the server's time
// less the phone's is taken from the latest club answer's X-Server-Time (before any, from the time the page was drawn at).
// One interval for the document, the clocks found again at each tick: a poll that redraws one neither restarts nor
// doubles it. It looks five times a second, so the figures turn within a fifth of a second of the server's.
var WARNING_MS = 5 * 60 * 1000;
var CLOCK_STATES = ["running", "warning", "up"];
var serverOffset = null;

function takeServerTime(event) {
  var xhr = event.detail.xhr;
  var serverTime = Number(xhr && xhr.getResponseHeader("X-Server-Time"));
  if (serverTime > 0) serverOffset = serverTime - Date.now();
}
// Before the answer is drawn too: a panel the browser kept (the poll answered 304) says the time it was first drawn
// at, which would show the clock that much behind until the answer's own time came.
document.addEventListener("htmx:beforeSwap", takeServerTime);
document.addEventListener("htmx:afterRequest", takeServerTime);

function mmss(left) {
  var seconds = Math.ceil(left / 1000);
  var minutes = Math.floor(seconds / 60);
  return (minutes < 10 ? "0" : "") + minutes + ":" + (seconds % 60 < 10 ? "0" : "") + (seconds % 60);
}

function tickClock(clock) {
  if (serverOffset === null) serverOffset = Number(clock.dataset.serverMs) - Date.now();
  if (clock.dataset.leftMs !== undefined) return; // paused: drawn as it stands
  var left = Math.max(0, Number(clock.dataset.endsMs) - (Date.now() + serverOffset));
  var state = left === 0 ? "up" : left <= WARNING_MS ? "warning" : "running";
  var figures = clock.querySelector("[data-clock-left]");
  if (figures && figures.textContent !== mmss(left)) figures.textContent = mmss(left);
  if (clock.classList.contains("clock-" + state)) return;
  // The words change once at five minutes and once at zero: announced then (aria-live), never each second.
  CLOCK_STATES.forEach(function (name) { clock.classList.toggle("clock-" + name, name === state); });
  var words = clock.querySelector("[data-clock-words]");
  if (words) words.textContent = clock.getAttribute("data-words-" + state);
}

// Every clock on the page put right now (a page or a part just drawn).
export function tickClocks() {
  document.querySelectorAll("[data-club-clock]").forEach(tickClock);
}
setInterval(tickClocks, 200);
// A poll's answer may be the browser's copy of one drawn minutes ago: its figures are put right before it is seen.
document.addEventListener("htmx:afterSwap", tickClocks);
