// The club evening's pages and a table's panel: a confirmation (or a call for the arbiter) made while the network was
// gone, kept on the phone and sent by itself once the server answers again (the server counts a table once, so one
// sent twice counts once); the polled regions held while someone works in them; the Print buttons; the turn's clock.
import { htmx } from "../vendor/htmx/htmx.min.js";
import { onLoad, roundsWaiting, tagParts } from "./app.js";
import { keepFocus } from "./focus.js";
import { kept, keep, onUnanswered, pairsOf, send, unanswered } from "./outbox.js";
import { tickClocks } from "./clock.js";

keepFocus();

// The club's writes kept in the outbox, one list: a write to an address replaces the one waiting for it.
var KEPT = "companion.club.writes";

// A write the version before this outbox kept, under a key of its own ("companion.club./evenings/…" holding its
// fields as an object), joins the list: a phone updated with a confirmation waiting loses nothing.
Object.keys(localStorage).forEach(function (key) {
  if (key.indexOf("companion.club./") !== 0) return;
  var url = key.slice("companion.club.".length), fields;
  try { fields = Object.entries(JSON.parse(localStorage.getItem(key))); } catch { fields = null; }
  if (fields) keep(KEPT, others(url).concat({ url: url, fields: fields }));
  localStorage.removeItem(key);
});

function others(url) {
  return kept(KEPT).filter(function (write) { return write.url !== url; });
}

function showKept(panel) {
  var note = panel && panel.querySelector("[data-kept-note]");
  if (note) note.hidden = false;
}

onUnanswered(function (config) {
  return config.elt instanceof Element && !!config.elt.closest("[data-club-write]");
}, function (config) {
  keep(KEPT, others(config.path).concat({ url: config.path, fields: pairsOf(config.formData) }));
  showKept(config.elt.closest("#club-table"));
});

// Each kept write goes out once the server is reached (a poll answered, the phone back online), all at once (the
// server counts a table once); whatever the server says of it then (counted, already counted, refused with its
// reason) the panel shows at once: its answer stands for the one the form that kept it never had, so the panel held
// for that form (below: its part still open, its choice just made) is let go. The answer is the panel as the server
// drew it for that write, a refusal's reason with it ("the result changed since…"): drawn as it is, a refusal first,
// since a poll would draw the new result to confirm without saying why the first confirmation did not count.
var sending = false;
function sendKept() {
  var list = kept(KEPT);
  if (sending || !list.length || !navigator.onLine) return;
  sending = true;
  var answered = false;
  var drawn = null;
  Promise.all(list.map(function (write) {
    return send(write.url, write.fields).then(function (answer) {
      if (unanswered(answer.status)) return;
      answered = true;
      keep(KEPT, others(write.url));
      var panel = document.querySelector("#club-table");
      var ours = panel && write.url.indexOf(panel.getAttribute("hx-get") + "/") === 0;
      if (ours && (!drawn || answer.status >= 400)) drawn = answer;
    });
  })).then(function () {
    sending = false;
    var panel = document.querySelector("#club-table");
    if (!panel || !answered) return;
    delete panel.dataset.editedAt;
    panel.querySelectorAll("details[open]").forEach(function (part) { part.open = false; });
    if (drawn) htmx.swap(panel, drawn.html, { swapStyle: "innerHTML" });
    else htmx.trigger(panel, "club-sent");
  });
}

// The other side's Confirm appears in the panel at the top of the page as the last hand is saved, often while the
// phone shows the rounds below: it is brought into view as it appears, the one thing this phone is asked to do.
var offeredConfirm = false;
onLoad(function (root) {
  var panel = document.querySelector("#club-table");
  if (panel && kept(KEPT).length) showKept(panel);
  if (root === panel || root === document.body || (panel && panel.contains(root))) sendKept();
  var offers = Boolean(panel && panel.querySelector(".club-confirm"));
  if (offers && !offeredConfirm) panel.scrollIntoView({ block: "start" });
  offeredConfirm = offers;
});
window.addEventListener("online", sendKept);

// Hands of this table that wait on the phone (kept offline, or refused once the server had them: the turn closed
// meanwhile) keep it at this table, where they are listed with the server's reason, until they are looked at: it goes
// to its next table at the tap, not by itself, which would take them out of sight.
document.addEventListener("htmx:configRequest", function (event) {
  var form = event.detail.elt;
  var tapped = event.detail.triggeringEvent && event.detail.triggeringEvent.type === "submit";
  if (form.hasAttribute("data-next-table") && !tapped && roundsWaiting()) event.preventDefault();
});
// A poll of the panel answered: the server is reached, though an answer that draws what the panel shows already is
// not drawn (below), so no load follows it.
document.addEventListener("htmx:afterRequest", function (event) {
  if (!event.detail.successful || event.detail.elt.id !== "club-table") return;
  sendKept();
  var live = document.getElementById("live");
  if (live) live.classList.remove("reconnecting");
  askLive(Number(event.detail.xhr.getResponseHeader("X-Match-Version")));
});

// At a club table the panel's poll is the page's only one (match.html): its answer names the match's version, and the
// live block (the standings, the rounds, the entry) is asked for only when that is newer than the version it shows;
// with no version, it is asked all the same (a 304 when nothing changed). A phone whose panel is held (below) still
// follows the match each second so; and one whose panel's poll cannot reach the server says it is reconnecting.
function askLive(version) {
  var live = document.getElementById("live");
  var shown = live && live.getAttribute("hx-trigger") === "live-check" && tagParts(live.dataset.etag);
  if (shown && !(version <= shown.version)) htmx.trigger(live, "live-check");
}
// Said there alone: the panel's poll writes nothing, and a warning over the page that the server cannot be reached
// (app.js) would cover the rounds.
document.addEventListener("htmx:sendError", function (event) {
  var live = event.detail.elt.id === "club-table" && document.getElementById("live");
  if (!live) return;
  live.classList.add("reconnecting");
  event.stopImmediatePropagation();
}, true);

// A new evening's form comes back redrawn when the game or the hands change (the preset scale follows them): what was
// typed while that answer was on its way (the entrants, the evening's name) is put back into the form it brings.
var typedMeanwhile = null;
var TYPED = "input[name]:not([type]), input[type=text][name], textarea[name]";
function setupForm(event) {
  return event.target instanceof Element ? event.target.querySelector("form.club-setup") : null;
}
document.addEventListener("htmx:beforeSwap", function (event) {
  var form = setupForm(event);
  var sent = event.detail.requestConfig && event.detail.requestConfig.formData;
  if (!form || !sent) return;
  typedMeanwhile = {};
  form.querySelectorAll(TYPED).forEach(function (field) {
    if (field.value !== (sent.get(field.name) || "")) typedMeanwhile[field.name] = field.value;
  });
});
document.addEventListener("htmx:afterSwap", function (event) {
  var form = setupForm(event);
  if (!form || !typedMeanwhile) return;
  form.querySelectorAll(TYPED).forEach(function (field) {
    if (Object.prototype.hasOwnProperty.call(typedMeanwhile, field.name)) field.value = typedMeanwhile[field.name];
  });
  typedMeanwhile = null;
});

// A decision no tap takes back (every table's time ended, an entrant withdrawn) asks first: its button holds the
// question (`data-confirm`; hx-confirm would ask it of every button of the form).
document.addEventListener("htmx:confirm", function (event) {
  var sent = event.detail.triggeringEvent;
  var question = sent && sent.submitter && sent.submitter.dataset.confirm;
  if (!question) return;
  event.preventDefault();
  if (window.confirm(question)) event.detail.issueRequest(true);
});
// The Print button of the table cards and the standings: the browser's own print dialog.
document.addEventListener("click", function (event) {
  if (event.target instanceof Element && event.target.closest("[data-print]")) window.print();
});
// A polled region the user is working in (a focused field, a choice made but not yet sent: the arbiter picking an
// entrant and a penalty; a refusal shown in an open part) is not redrawn under their fingers: its polls are skipped
// until the answer to their own form redraws it, or a minute after their last change. A part merely open (the log,
// a Settle not yet typed in) does not hold it: the arbiter reading the log would miss the calls; it is drawn open
// again (`data-keep-open`, below).
var EDITING_HOLD_MS = 60000;
document.addEventListener("change", function (event) {
  var region = event.target instanceof Element && event.target.closest("[data-hold-while-editing]");
  if (region) region.dataset.editedAt = String(Date.now());
});
// Nor while one of its own writes is on its way: a poll drawn then would take the form that sent it out of the page,
// and the write's failure (a proxy's 502) would be told to that form alone, heard by no listener: lost, not kept.
// (htmx's hx-sync could queue them too, but its "replace" logs every poll it aborts as an error.)
var writing = new WeakMap();
function held(region) {
  if (!region.hasAttribute("data-hold-while-editing")) return false;
  var write = writing.get(region);
  var edited = Date.now() - Number(region.dataset.editedAt || 0) < EDITING_HOLD_MS;
  return edited || (write && write.readyState !== XMLHttpRequest.DONE) ||
    !!region.querySelector("details[open] .field-error, input:focus, select:focus, textarea:focus");
}
// The parts open before a poll's redraw, opened again in what it drew.
var opened = new WeakMap();
document.addEventListener("htmx:beforeSwap", function (event) {
  var region = event.detail.target;
  if (event.detail.requestConfig && event.detail.requestConfig.verb === "get") {
    opened.set(region, Array.prototype.map.call(region.querySelectorAll("details[open][data-keep-open]"),
      function (part) { return part.dataset.keepOpen; }));
  }
});
document.addEventListener("htmx:afterSwap", function (event) {
  var keys = opened.get(event.target);
  opened.delete(event.target);
  // The answer to the user's own form is drawn as the server drew it (a Settle given closes).
  if (!keys || !event.detail.requestConfig || event.detail.requestConfig.verb !== "get") return;
  event.target.querySelectorAll("details[data-keep-open]").forEach(function (part) {
    if (keys.indexOf(part.dataset.keepOpen) >= 0) part.open = true;
  });
});
document.addEventListener("htmx:beforeRequest", function (event) {
  var elt = event.detail.elt;
  var region = event.detail.requestConfig.verb !== "get" && elt.closest("[data-hold-while-editing]");
  if (region && region !== elt) writing.set(region, event.detail.xhr);
  else if (held(elt)) {
    event.preventDefault();
    if (elt.id === "club-table") askLive();
  }
});
// A poll sent just before the user opened a part or picked a choice is not drawn over it either: the region's poll
// alone, a GET (the answer to the user's form, a POST drawn into the same region, is drawn).
document.addEventListener("htmx:beforeSwap", function (event) {
  var asked = event.detail.requestConfig;
  if (asked && asked.verb === "get" && held(event.detail.target)) event.detail.shouldSwap = false;
});
// Nor is a poll's answer that draws what the region shows already: the browser turns the server's 304 into the
// answer it kept, and drawn again every second it would close what a tap had just opened when the two met, and
// make the region's aria-live speak again.
var shown = new WeakMap();
document.addEventListener("htmx:beforeSwap", function (event) {
  var asked = event.detail.requestConfig;
  var region = event.detail.target;
  if (asked && asked.verb === "get" && region.hasAttribute("data-hold-while-editing") &&
      shown.get(region) === event.detail.serverResponse) event.detail.shouldSwap = false;
});
// Nor is a poll's answer over a refusal the panel shows ("the result changed since…", beside the new result to
// confirm) while it draws the same state as the refusal's answer did (the poll's tag, `data-drawn-as`): redrawn a
// second later without it, the reason went before anyone at the table had read it.
function drawnAs(html) {
  var holder = document.createElement("template");
  holder.innerHTML = html || "";
  var drawn = holder.content.querySelector("[data-drawn-as]");
  return drawn && drawn.dataset.drawnAs;
}
document.addEventListener("htmx:beforeSwap", function (event) {
  var asked = event.detail.requestConfig;
  var region = event.detail.target;
  var now = region.querySelector(":scope > [data-drawn-as]");
  if (asked && asked.verb === "get" && now && region.querySelector(".field-error") &&
      drawnAs(event.detail.serverResponse) === now.dataset.drawnAs) event.detail.shouldSwap = false;
});
document.addEventListener("htmx:afterSwap", function (event) {
  if (event.target instanceof Element && event.target.hasAttribute("data-hold-while-editing")) {
    delete event.target.dataset.editedAt;
    shown.set(event.target, event.detail.xhr ? event.detail.xhr.responseText : null);
  }
});

onLoad(tickClocks);
// The log's and the calls' times, which the server writes in UTC, in the phone's own time zone (24 hours, as the
// server's other times).
onLoad(function (root) {
  root.querySelectorAll("time[data-local]").forEach(function (time) {
    var at = new Date(time.dateTime);
    if (!isNaN(at)) {
      time.textContent = at.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
    }
  });
});
