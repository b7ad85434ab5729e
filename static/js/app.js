// Behaviours shared by every page, and what the other scripts import from it: the scripts' words, the set-up of
// what htmx draws, the read-back line. The offline sender (offline.js) and a game's entry widgets (static/js/games/)
// come in bundles of their own, on the pages that enter rounds (assets.py).
import { htmx } from "../vendor/htmx/htmx.min.js";

// The scripts' words in the page's language: those every page shows, drawn by base.html into a JSON block, and
// those of a bundle's scripts, which its bundle adds (addTexts, assets.py).
var bundleTexts = {};

export function addTexts(words) { Object.assign(bundleTexts, words); }

// What a key says in the page's language: a plain text, or a count's two forms ({one, other}).
export function wordsFor(key) {
  if (key in bundleTexts) return bundleTexts[key];
  var block = document.getElementById("ui-texts");
  try { return block ? JSON.parse(block.dataset.texts)[key] : undefined; } catch { return undefined; }
}

// A plain text, or a count's two forms, `%(num)s` standing for the count; on a match page, as its game counts (a
// hand, a set) where the offline sender's words name a round (i18n.offline_texts brings them as `<slug>.<key>`).
export function text(key, count) {
  var game = document.querySelector("[data-offline-game]");
  var found = (game && wordsFor(game.dataset.offlineGame + "." + key)) || wordsFor(key);
  if (found && typeof found === "object") found = count === 1 ? found.one : found.other;
  return String(found || key).replace("%(num)s", String(count));
}

// A script of a page's own bundle sets up what htmx draws. One that came with the page's head, or
// before htmx draws the page a boosted link brought (see below), is in time for htmx's load event;
// one brought to a page already drawn (the offline sender, for rounds kept) sets it up at once.
var started = false;
var holding = 0;
htmx.onLoad(function () { started = true; });
export function onLoad(callback) {
  htmx.onLoad(callback);
  if (started && !holding) callback(document.body);
}

// Where a phone keeps the rounds it could not send, per match (offline.js), which a page that only follows the
// match looks for below.
export const KEPT_PREFIX = "companion.waiting.";

// How many rounds of the match shown wait on this phone (kept offline, or refused and waiting for a look).
export function roundsWaiting() {
  var section = document.querySelector("#entry[data-offline-match]");
  if (!section) return 0;
  try { return JSON.parse(localStorage.getItem(KEPT_PREFIX + section.dataset.offlineMatch) || "[]").length; }
  catch { return 0; }
}

// Over a plain http:// address (the laptop's, as `make run` prints it) no service worker runs: a reload without
// the network is the browser's own error page, the rounds kept but out of sight until the network is back. So the
// page asks before it is left while rounds wait (a boosted link of the app too: htmx's navigation fires no
// beforeunload), and on such an address says, while it matters, that reloading needs the network.
window.addEventListener("beforeunload", function (event) {
  if (roundsWaiting()) {
    event.preventDefault();
    event.returnValue = "";
  }
});
var VERBS = ["hx-get", "hx-post", "hx-put", "hx-patch", "hx-delete"];
// A boosted link to another page. A boosted form on the page where rounds wait is one of its own actions (take
// the pencil back, undo), whose answer is this page again: it must go out, never be held behind a question.
function leaves(element) {
  var boost = element.closest && element.closest("[hx-boost]");
  return Boolean(boost && boost.getAttribute("hx-boost") === "true" && element.matches("a[href]") &&
    !VERBS.some(function (verb) { return element.hasAttribute(verb); }) &&
    new URL(element.href, location.href).pathname !== location.pathname);
}
// Its words come with the offline sender, which every page where rounds wait loads (see below).
document.addEventListener("htmx:confirm", function (event) {
  var count = roundsWaiting();
  if (!count || !leaves(event.detail.elt)) return;
  event.preventDefault();
  if (window.confirm(text("leave_waiting", count))) event.detail.issueRequest(true);
});
export function showReloadNote() {
  var note = document.getElementById("reload-note");
  if (note) note.hidden = window.isSecureContext || !(roundsWaiting() || !navigator.onLine);
}
window.addEventListener("online", showReloadNote);
window.addEventListener("offline", showReloadNote);

// The read-back line at the top of the screen, drawn by a script (the server draws its own): a warning, or a
// round kept on the phone (`kept`), with what the line offers beside its words (`offer`: Undo).
export function showBanner(message, kept, offer) {
  var slot = document.getElementById("banner");
  if (!slot) return null;
  slot.innerHTML = "";
  var line = document.createElement(kept ? "div" : "p");
  line.className = kept ? "readback kept-readback" : "readback failed";
  line.setAttribute("role", kept ? "status" : "alert");
  if (offer) {
    var said = document.createElement("span");
    said.textContent = message;
    said.tabIndex = 0; // a tap shows it whole (app.css)
    line.appendChild(said);
    line.appendChild(offer);
  } else {
    line.textContent = message;
  }
  slot.appendChild(line);
  keepClear();
  return line;
}

// What the next tap is for (Topic_'s loser buttons, marked data-keep-clear) is kept between the read-back line,
// which sticks to the top of the screen after a save, and the screen's bottom edge, or what covers that edge
// (a keypad bar, data-covers-bottom): under the line, a quick tap for the next round would undo the last one.
// The parts so marked are kept clear together (Topic_'s question "Who lost round 5?" and its buttons).
export function keepClear(target) {
  var parts = target ? [target] : [].slice.call(document.querySelectorAll("#entry [data-keep-clear]"));
  parts = parts.filter(function (part) { return part.getClientRects().length; });
  if (!parts.length) return;
  var gap = 8;
  var slot = document.getElementById("banner");
  var top = slot && getComputedStyle(slot).position === "sticky" ? Math.max(0, slot.getBoundingClientRect().bottom) : 0;
  var bottom = window.innerHeight;
  // A bar stuck to the bottom covers its own height there, wherever it stands before the page has scrolled.
  document.querySelectorAll("[data-covers-bottom]").forEach(function (bar) {
    var style = getComputedStyle(bar);
    if ((style.position !== "sticky" && style.position !== "fixed") || style.bottom === "auto") return;
    var height = bar.getBoundingClientRect().height;
    if (height) bottom = Math.max(Math.min(bottom, window.innerHeight - height), top);
  });
  var boxes = parts.map(function (part) { return part.getBoundingClientRect(); });
  var box = {
    top: Math.min.apply(null, boxes.map(function (one) { return one.top; })),
    bottom: Math.max.apply(null, boxes.map(function (one) { return one.bottom; })),
  };
  if (box.top < top + gap) window.scrollBy(0, box.top - top - gap);
  else if (box.bottom > bottom - gap) window.scrollBy(0, Math.min(box.bottom - bottom + gap, box.top - top - gap));
}

// --- a page's own bundles ------------------------------------------------------------------
// A page names in its head the bundles it loads beside the shared ones (assets.py). A boosted link
// or form, or the back button, brings a whole page of which htmx swaps the body alone: the bundles
// its head names that this document lacks are added first, and htmx handles the answer once they
// have loaded, so the page is never seen unstyled, nor tapped before its scripts answer. The
// previous page stays meanwhile; past ASSET_WAIT_MS the new one is drawn anyway.
var ASSET_WAIT_MS = 10000;
var loading = {};  // what is on its way, by URL
function present(url) {
  return [].some.call(document.head.querySelectorAll("link[rel=stylesheet],script[src]"), function (tag) {
    return (tag.getAttribute("href") || tag.getAttribute("src")) === url;
  });
}
// The bundle added to the head unless it is there: a promise of its arrival, none if it is in.
function addBundle(url, isStyle) {
  if (!loading[url] && !present(url)) {
    loading[url] = new Promise(function (resolve) {
      var tag = document.createElement(isStyle ? "link" : "script");
      if (isStyle) { tag.rel = "stylesheet"; tag.href = url; } else { tag.type = "module"; tag.src = url; }
      // One that cannot be had (offline, an older version's) is left out, and the next page asks again.
      tag.onload = tag.onerror = function (event) {
        delete loading[url];
        if (event.type === "error") tag.remove();
        resolve();
      };
      document.head.appendChild(tag);
    });
  }
  return loading[url];
}
// The shared bundles' addresses, whose digest changes with every version of the app.
var SHARED_BUNDLE = /\/bundle\/[0-9a-f]+\.(?:css|js)$/;
// `whole`: how the page of another version is loaded instead, as a new entry of the history (a link) or in place
// of the one shown (the back button); none for a form's answer.
function holdForBundles(xhr, whole) {
  var handle = xhr.onload;
  xhr.onload = function () {
    var self = this;
    var args = arguments;
    var end = String(xhr.response).indexOf("</head>");
    var head = end > 0 ? new DOMParser().parseFromString(xhr.response.slice(0, end), "text/html") : null;
    var bundles = head ? [].slice.call(head.querySelectorAll("link[rel=stylesheet],script[src]")) : [];
    // A page of another version of the app (the server was updated while this page stayed open) names other
    // shared bundles: drawn into this document, its scripts would run beside this version's. It is loaded
    // whole instead; a form's answer is drawn as it is, as loading it again would send the form again.
    var otherVersion = bundles.some(function (tag) {
      var url = tag.getAttribute("href") || tag.getAttribute("src");
      return SHARED_BUNDLE.test(url) && !present(url);
    });
    if (otherVersion && whole && xhr.responseURL) {
      window.location[whole](xhr.responseURL);
      return;
    }
    var waits = [];
    // A part of a page that needs bundles of its own (a match's replay, drawn on a page that followed the
    // match as it ended) names them in the answer's Link header (assets.needs_bundles).
    (xhr.getResponseHeader("Link") || "").split(",").forEach(function (link) {
      // A stylesheet is preloaded as a style, a script bundle as a module.
      var named = /<([^>]+)>.*\b(as=style|rel="?modulepreload)/.exec(link);
      var wait = named && addBundle(named[1], named[2] === "as=style");
      if (wait) waits.push(wait);
    });
    bundles.forEach(function (tag) {
      var wait = addBundle(tag.getAttribute("href") || tag.getAttribute("src"), tag.tagName === "LINK");
      if (wait) waits.push(wait);
    });
    if (!waits.length) return handle.apply(self, args);
    holding++;
    var late = new Promise(function (resolve) { setTimeout(resolve, ASSET_WAIT_MS); });
    Promise.race([Promise.all(waits), late]).then(function () {
      holding--;
      handle.apply(self, args);
    });
  };
}
document.addEventListener("htmx:beforeSend", function (event) {
  var config = event.detail.requestConfig;
  holdForBundles(event.detail.xhr, config && config.verb === "get" ? "assign" : null);
});
// A link may name the bundles of the page it brings: they are asked for with the page, not after it.
// (A script of them sets up what htmx draws: here nothing yet, then the page when it comes.)
document.addEventListener("htmx:beforeRequest", function (event) {
  var link = event.detail.elt.closest && event.detail.elt.closest("[data-bundles]");
  if (link) link.dataset.bundles.split(" ").forEach(function (url) { addBundle(url, /\.css$/.test(url)); });
});
document.addEventListener("htmx:historyCacheMiss", function (event) { holdForBundles(event.detail.xhr, "replace"); });
// Once the page is drawn and the line is idle, the bundles its links name are fetched ahead into the cache, so
// that a tap brings the page alone (on a slow line the match page's styles and scripts were a third of the tap's
// wait). Not on a phone that asked to save data.
var prefetched = {};
function prefetchLinked(root) {
  if (navigator.connection && navigator.connection.saveData) return;
  [].forEach.call(root.querySelectorAll("[data-bundles]"), function (link) {
    link.dataset.bundles.split(" ").forEach(function (url) {
      if (!url || prefetched[url] || present(url)) return;
      prefetched[url] = true;
      var tag = document.createElement("link");
      tag.rel = "prefetch";
      tag.href = url;
      document.head.appendChild(tag);
    });
  });
}
function whenIdle(callback) {
  (window.requestIdleCallback || function (run) { setTimeout(run, 200); })(callback);
}
window.addEventListener("load", function () { whenIdle(function () { prefetchLinked(document.body); }); });
htmx.onLoad(function (elt) {
  if (document.readyState === "complete" && elt.querySelectorAll) whenIdle(function () { prefetchLinked(elt); });
});

// A phone that kept rounds of a match it now only follows (it lost the pencil) still shows them, to
// send or discard: the offline sender, which that page does not load, comes for them.
htmx.onLoad(function () {
  var section = document.querySelector("#entry[data-offline-scripts]");
  if (!section || section.dataset.keptLooked) return;
  section.dataset.keptLooked = "1";
  if (localStorage.getItem(KEPT_PREFIX + section.dataset.offlineMatch)) {
    section.dataset.offlineScripts.split(" ").forEach(function (url) { addBundle(url, false); });
  }
});

// Live followers send the version they show, so an unchanged match costs a bodiless 304.
document.addEventListener("htmx:configRequest", function (event) {
  var el = event.detail.elt;
  if (el.hasAttribute("data-live") && el.dataset.etag) {
    event.detail.headers["If-None-Match"] = el.dataset.etag;
  }
  // What the match page's entry shows: the answer draws it again once the pencil or the match moved on.
  var shows = el.id === "live" && document.querySelector("#entry [data-entry-shows]");
  if (shows) event.detail.headers["X-Entry-Shows"] = shows.dataset.entryShows;
  // A page the server sends htmx to (HX-Location: a match started, a table card's seat taken) is asked for as a
  // boosted link asks: drawn whole, and kept by the service worker for a reload without the network.
  if (el === document.body && event.detail.verb === "get") event.detail.headers["HX-Boosted"] = "true";
});
// A live tag names the match, its version and the language ("v7-…-en", ":br" added by compression). Answers
// can come back in another order than asked (a poll beside a save): only a newer version is taken.
export function tagParts(tag) {
  var parts = /^(?:W\/)?"?v(\d+)-([^":]*)/.exec(tag || "");
  return parts && { version: Number(parts[1]), rest: parts[2] };
}
function isNewer(tag, than) {
  var answer = tagParts(tag), shown = tagParts(than);
  return !answer || !shown || answer.rest !== shown.rest || answer.version > shown.version;
}
document.addEventListener("htmx:afterRequest", function (event) {
  var el = event.detail.elt;
  var xhr = event.detail.xhr;
  if (el.hasAttribute("data-live") && xhr) {
    var tag = xhr.getResponseHeader("ETag");
    if (tag && isNewer(tag, el.dataset.etag)) el.dataset.etag = tag;
  }
  // The scorekeeper's own save already drew the version it made: its poll need not fetch it again.
  var made = xhr && xhr.getResponseHeader("X-Live-ETag");
  var live = made && document.getElementById("live");
  if (live && isNewer(made, live.dataset.etag)) live.dataset.etag = made;
});
// Quick taps on a tool whose answers draw the entry alone (Pazaak's hand picker and boards) are answered in any
// order: one that comes back after the next tap's would draw the entry as it stood a tap before, and the polls,
// already at the newest version, would never draw it again. Its answer names the version it drew.
function isOlder(tag, than) {
  var answer = tagParts(tag), shown = tagParts(than);
  return Boolean(answer && shown && answer.rest === shown.rest && answer.version < shown.version);
}
document.addEventListener("htmx:beforeSwap", function (event) {
  var drawn = event.detail.xhr && event.detail.xhr.getResponseHeader("X-Entry-Version");
  var shown = drawn && event.detail.target && event.detail.target.id === "entry" &&
    event.detail.target.querySelector("[data-entry-version]");
  if (shown && isOlder(drawn, shown.dataset.entryVersion)) event.detail.shouldSwap = false;
});
// The same holds for the entry a poll draws out of band (its entry showed something else when it was sent): a
// poll answered after a quicker tap's answer would draw the entry as it stood before that tap. Nor is the entry
// drawn again as the tap's answer drew it (the same version, showing the same): the next tap would land on the
// board being replaced, and be lost.
document.addEventListener("htmx:oobBeforeSwap", function (event) {
  var drawn = event.detail.target.id === "entry" && event.detail.fragment.querySelector("[data-entry-version]");
  var shown = drawn && event.detail.target.querySelector("[data-entry-version]");
  if (!shown) return;
  var same = drawn.dataset.entryVersion === shown.dataset.entryVersion &&
    drawn.dataset.entryShows === shown.dataset.entryShows;
  if (same || isOlder(drawn.dataset.entryVersion, shown.dataset.entryVersion)) event.detail.shouldSwap = false;
});
// ...and a poll sent before that save and answered after it brings that same version or an older one:
// drawn, its entry (empty) would replace what the save drew (the round an Undo put back in the entry),
// and an older table would take the newest round away until the next poll.
document.addEventListener("htmx:beforeSwap", function (event) {
  var el = event.detail.elt;
  var tag = el.id === "live" && event.detail.xhr && event.detail.xhr.getResponseHeader("ETag");
  if (tag && !isNewer(tag, el.dataset.etag)) event.detail.shouldSwap = false;
});
// A save's answer adds its round's row to the table: a poll answered before it, after the save was
// stored, has drawn the table with that round already.
document.addEventListener("htmx:oobBeforeSwap", function (event) {
  var made = event.detail.fragment.dataset && event.detail.fragment.dataset.liveEtag;
  var live = made && document.getElementById("live");
  if (live && !isNewer(made, live.dataset.etag)) event.detail.shouldSwap = false;
});

// A request that never reached the server, or a server failure, must not look like a save.
// (A round save that cannot be sent is kept on the phone by offline.js, which says so itself.)
document.addEventListener("htmx:sendError", function (event) {
  var el = event.detail.elt;
  if (el.hasAttribute("data-live")) {
    el.classList.add("reconnecting");
    return;
  }
  var line = showBanner(text("needs_server"));
  if (line) line.dataset.unreached = "";
});
document.addEventListener("htmx:responseError", function (event) {
  if (event.detail.xhr && event.detail.xhr.status >= 500) showBanner(text("server_failed"));
});
// A viewer's phone says when it lost the connection, and catches up by itself on the next poll; the warning that
// the server could not be reached goes once it answers again.
document.addEventListener("htmx:afterRequest", function (event) {
  var el = event.detail.elt;
  if (el.hasAttribute("data-live") && event.detail.successful) el.classList.remove("reconnecting");
  var unreached = event.detail.successful && document.querySelector("#banner [data-unreached]");
  if (unreached) unreached.remove();
});

// A page's own scripts (the history's calendar) are modules it names in data-page-scripts:
// fetched once that page has loaded, so no other page, and not its own first drawing, pays them.
var pageScripts = {};
function loadPageScripts() {
  document.querySelectorAll("[data-page-scripts]").forEach(function (element) {
    element.dataset.pageScripts.split(" ").forEach(function (url) {
      if (url && !pageScripts[url]) {
        pageScripts[url] = import(url).catch(function () { delete pageScripts[url]; });
      }
    });
  });
}
htmx.onLoad(function () {
  if (document.readyState === "complete") loadPageScripts();
  else window.addEventListener("load", loadPageScripts, { once: true });
});

// A rounds or records table wider than the screen says so above it; a rounds table also fades at the
// edge it continues past. A table that scrolls either way (Topic_'s rounds also down) takes the focus, so
// that a keyboard's arrows can reach what it hides.
function markScrolling(box) {
  var hint = box.previousElementSibling;
  var scrolls = box.scrollWidth > box.clientWidth + 1;
  box.classList.toggle("scrolls", scrolls);
  if (scrolls || box.scrollHeight > box.clientHeight + 1) box.tabIndex = 0;
  else box.removeAttribute("tabindex");
  box.classList.toggle("scrolled-to-end", box.scrollLeft + box.clientWidth >= box.scrollWidth - 1);
  if (hint && hint.hasAttribute("data-scroll-hint")) hint.hidden = !scrolls;
}
// Measured in the next frame, once for all that changed before it: read during htmx's swap, a table's width forced
// the new page's first layout there (70 ms of a boosted tap on a phone 4x slower), and again at every poll drawn.
var marking = false;
function markAllScrolling() {
  if (marking) return;
  marking = true;
  requestAnimationFrame(function () {
    marking = false;
    document.querySelectorAll(".rounds-scroll, .table-scroll").forEach(markScrolling);
  });
}
htmx.onLoad(markAllScrolling);
window.addEventListener("resize", markAllScrolling);
// A folded table (Topic_'s rounds) has no width until it is unfolded.
document.addEventListener("toggle", markAllScrolling, true);
document.addEventListener("scroll", function (event) {
  var box = event.target.classList ? event.target : null;
  if (box && (box.classList.contains("rounds-scroll") || box.classList.contains("table-scroll"))) markScrolling(box);
}, true);

// What sticks to the top of the screen below the read-back banner (a desktop's keypad) reads its
// height from --banner-height: a read-back may take one line or three.
var bannerHeight = window.ResizeObserver && new ResizeObserver(function (entries) {
  entries.forEach(function (entry) {
    document.documentElement.style.setProperty("--banner-height", entry.target.offsetHeight + "px");
  });
});
htmx.onLoad(function () {
  var slot = document.getElementById("banner");
  if (bannerHeight && slot && !slot.dataset.measured) {
    slot.dataset.measured = "1";
    bannerHeight.observe(slot);
  }
});

// A save's, undo's or redo's answer draws the entry and the read-back line: the next tap's buttons are kept clear
// of it. A poll's drawing moves nothing, as the scorekeeper may be reading higher up; but what must be in view as
// soon as it is drawn (a seated phone's own row, which the keypad's tray would cover when the page opens and after
// each round) is kept clear whoever drew it. After htmx has scrolled where the swap says (a boosted page: the top).
var DRAWN_CLEAR = '[data-keep-clear="on-load"]';
function holds(element, selector) {
  return Boolean(element.querySelector && (element.matches(selector) || element.querySelector(selector)));
}
document.addEventListener("htmx:afterSettle", function (event) {
  var target = event.target;
  var answered = target.id === "entry" && !event.detail.elt.hasAttribute("data-live");
  if (answered || holds(target, DRAWN_CLEAR)) setTimeout(function () { keepClear(); }, 0);
});
htmx.onLoad(function (root) {
  if (root === document.body && holds(root, "#entry " + DRAWN_CLEAR)) keepClear();
});


// A boosted link's new page puts the focus on its heading, so that a screen reader says where it is (a redrawn
// control's focus is kept by focus.js, on the pages that redraw one). A refused form's page (4xx: drawn again, the
// reason beside the field; it keeps its address, web/hx.py) puts it on the first field refused, brought into view:
// drawn from the top, the reason was a screen or more below, unseen.
var boostedFrom = null;
var refused = false;
document.addEventListener("htmx:beforeSwap", function (event) {
  var active = document.activeElement;
  boostedFrom = event.detail.boosted && active && active !== document.body ? active : null;
  refused = event.detail.boosted && /^4/.test(event.detail.xhr.status);
});
document.addEventListener("htmx:afterSettle", function () {
  var field = refused && document.querySelector('#main [aria-invalid="true"]');
  var heading = boostedFrom && !document.body.contains(boostedFrom) && document.querySelector("#main h1");
  boostedFrom = null;
  refused = false;
  if (field) {
    // After htmx has scrolled the new page to its top.
    return setTimeout(function () {
      field.scrollIntoView({ block: "center" });
      field.focus({ preventScroll: true });
    });
  }
  if (!heading || (document.activeElement && document.activeElement !== document.body)) return;
  heading.tabIndex = -1;
  heading.focus({ preventScroll: true });
});

// A link drawn as a button ("New match") is pressed by Space too, as a button is.
document.addEventListener("keydown", function (event) {
  if (event.key === " " && event.target.matches && event.target.matches('a[role="button"]')) {
    event.preventDefault();
    event.target.click();
  }
});

htmx.onLoad(showReloadNote);

// The read-back banner steps aside after a few seconds.
htmx.onLoad(function (root) {
  if (!root.querySelectorAll) return;
  // The read-back itself is what a save's answer puts into the banner's slot (the slot stays: its live region).
  var banners = root.matches("[data-fade]") ? [root] : root.querySelectorAll("[data-fade]");
  banners.forEach(function (banner) {
    setTimeout(function () { banner.classList.add("faded"); }, 8000);
  });
});

// Installable app: the service worker keeps the shell for a clear offline page.
if ("serviceWorker" in navigator && window.isSecureContext) {
  window.addEventListener("load", function () {
    navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(function () {});
  });
}

// Keep the screen on during a match, where the browser allows it (HTTPS or localhost).
var lock = null;
var wanted = localStorage.getItem("wake") !== "off";

function show(button) {
  button.setAttribute("aria-pressed", lock ? "true" : "false");
  button.textContent = lock ? button.dataset.on : button.dataset.off;
}
function acquire(button) {
  if (!("wakeLock" in navigator) || !wanted) { show(button); return; }
  navigator.wakeLock.request("screen").then(function (sentinel) {
    lock = sentinel;
    lock.addEventListener("release", function () { lock = null; show(button); });
    show(button);
  }).catch(function () { lock = null; show(button); });
}
htmx.onLoad(function (root) {
  var button = root.querySelector ? root.querySelector("[data-wake]") : null;
  if (!button) return;
  if (!("wakeLock" in navigator)) {
    button.disabled = true;
    button.textContent = button.dataset.unsupported;
    return;
  }
  button.addEventListener("click", function () {
    wanted = !lock;
    localStorage.setItem("wake", wanted ? "on" : "off");
    if (lock) { lock.release(); } else { acquire(button); }
  });
  // The tools are redrawn after every save: keep the lock we hold, just show it.
  if (lock) { show(button); } else { acquire(button); }
});
// The browser drops the lock when the page is hidden; take it again on return.
document.addEventListener("visibilitychange", function () {
  var button = document.querySelector("[data-wake]");
  if (button && document.visibilityState === "visible" && !lock) acquire(button);
});
