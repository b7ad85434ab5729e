// The hall screen: its long lists (the tables, the standings, the seating) shown a page at a time, as many lines as
// the screen's height holds, turning every 10 s and kept at their page across the polls' redraws; the "Reconnecting…"
// line on a failed poll (app.js marks a network failure, this a server's); the screen kept awake where allowed.
import { onLoad } from "./app.js";
import { tickClocks } from "./clock.js";

var TURN_MS = 10000;
// Each pager's page starts and the page shown, by name: a poll's redraw keeps the page each list was at.
var pagers = {};

function itemsOf(pager) {
  var list = pager.querySelector("[data-pager-items]");
  return list ? Array.prototype.slice.call(list.children) : [];
}

function showRange(items, from, to) {
  items.forEach(function (item, i) {
    var hide = i < from || i >= to;
    if (item.hidden !== hide) item.hidden = hide;
  });
}

// The first item of each page: as many items from each start as the pager's box holds (found by halving), so the
// page size follows the screen and the lines' own heights (a long name on two lines), never a fixed count.
function pageStarts(pager, items) {
  var starts = [];
  var start = 0;
  while (start < items.length) {
    starts.push(start);
    var low = 1, high = items.length - start;
    while (low < high) {
      var middle = Math.ceil((low + high) / 2);
      showRange(items, start, start + middle);
      if (pager.scrollHeight <= pager.clientHeight + 1) low = middle; else high = middle - 1;
    }
    start += low;
  }
  return starts.length ? starts : [0];
}

function draw(pager) {
  var name = pager.dataset.pager;
  var items = itemsOf(pager);
  var state = pagers[name] || { shown: 0 };
  state.starts = pageStarts(pager, items);
  state.shown = Math.min(state.shown, state.starts.length - 1);
  pagers[name] = state;
  showRange(items, state.starts[state.shown], state.starts[state.shown + 1] || items.length);
  var label = document.querySelector('[data-pager-label="' + name + '"]');
  var screen = document.getElementById("hall-live");
  if (label && screen) {
    label.textContent = state.starts.length > 1
      ? screen.dataset.pageWords.replace("{n}", state.shown + 1).replace("{m}", state.starts.length) : "";
  }
}

function drawAll() {
  document.querySelectorAll("[data-pager]").forEach(draw);
}

function turnPages() {
  Object.keys(pagers).forEach(function (name) {
    var state = pagers[name];
    state.shown = (state.shown + 1) % state.starts.length;
  });
  drawAll();
}

// A poll's swap loads each of the region's parts: they are paged once, before the browser paints any of them.
var turning = null, queued = false;
onLoad(function (root) {
  var screen = document.getElementById("hall-live");
  if (!screen || queued || !(root === screen || screen.contains(root) || root.contains(screen))) return;
  queued = true;
  queueMicrotask(function () {
    queued = false;
    drawAll();
  });
  if (!turning) turning = setInterval(turnPages, TURN_MS);
});
window.addEventListener("resize", function () {
  if (document.getElementById("hall-live")) drawAll();
});

// A server that fails (a 5xx, a proxy's 502 during a restart) or a poll that times out: reconnecting, as a cut network.
function reconnecting(event) {
  if (event.detail.elt && event.detail.elt.id === "hall-live") event.detail.elt.classList.add("reconnecting");
}
document.addEventListener("htmx:responseError", reconnecting);
document.addEventListener("htmx:timeout", reconnecting);

// The screen kept awake where the browser allows it (a secure context); a hidden page loses the lock, asked again
// when the page is shown. Where it is refused, the TV's own settings keep it on (docs/club.md).
var wakeLock = null;
function keepAwake() {
  if (!document.getElementById("hall-live") || !("wakeLock" in navigator) || document.visibilityState !== "visible") return;
  if (wakeLock && !wakeLock.released) return;
  navigator.wakeLock.request("screen").then(function (lock) { wakeLock = lock; }, function () {});
}
document.addEventListener("visibilitychange", keepAwake);
onLoad(keepAwake);

onLoad(tickClocks);
