// Offline-proof scorekeeping: a round saved while the server cannot be reached is kept on this
// phone and sent when it can be, in order, one at a time, each at most once.
//
// Each save carries a key made here (`round_key`) and the round number it expects (`number`):
// the server stores the key with the round and answers a key it already holds with "already
// stored", so a retry after a lost answer never stores a round twice. The server's answer stays
// the source of truth: once the waiting rounds are sent, the page is drawn again from it.
//
// Its words come in front of it in its bundle, in the page's language (assets.py): a page in another
// language brings them anew, and this sender, running already, keeps going alone.
import { htmx } from "../vendor/htmx/htmx.min.js";
import { KEPT_PREFIX, onLoad, showBanner, showReloadNote, text, wordsFor } from "./app.js";
import { keepFocus } from "./focus.js";
import { describers } from "./entries.js";
import { field, kept, keep as keepList, pairsOf, queueWrites, reasonOf as refusalOf, retrier, send } from "./outbox.js";

keepFocus();

var section = null;      // the match page's #entry, which says where to send
var retry = retrier(drain);
var sending = false;
var sendingKey = null;
var sentCount = 0;

// --- the rounds kept on this phone, per match, in the outbox (each {key, number, fields, summary, where})

function waiting() { return kept(KEPT_PREFIX + section.dataset.offlineMatch); }

function keep(list) { return keepList(KEPT_PREFIX + section.dataset.offlineMatch, list); }

// A text with its parameters, `%(name)s` standing for each, as the server's own translated() fills in a Message:
// a game's describer says a kept round in the words of its read-back.
function say(key, params) {
  var found = wordsFor(key);
  if (found && typeof found === "object") found = params.num === 1 ? found.one : found.other;
  return String(found === undefined ? key : found).replace(/%\((\w+)\)s/g, function (all, name) {
    return name in params ? String(params[name]) : all;
  });
}

// What a kept round of a game says, in the words of its game's own script (static/js/games/<slug>.js):
// what was entered, as the server's read-back says it (tests/e2e/test_readback_parity.py holds the two to
// it); what the round does to the standings waits for the server. `match` is the entry's data-describe.
export function summaryOf(game, pairs, match) {
  try {
    return describers[game] ? describers[game](pairs, match, say) : "";
  } catch {
    return "";
  }
}

// The head of a round's line as its game calls it ("Round 4:", "Hand 4:"), the read-back's own words.
export function labelOf(game, number) {
  return say(game + ".label", { n: number });
}

function describe(pairs) {
  var match;
  try { match = JSON.parse(section.dataset.describe); } catch { return ""; }
  return summaryOf(section.dataset.offlineGame, pairs, match);
}

function label(number) { return labelOf(section.dataset.offlineGame, number); }

// --- drawing: the status line, the kept rounds above the table, the standings' note

function draw() {
  if (!section) return;
  showReloadNote();
  var list = waiting();
  var status = document.getElementById("offline-status");
  var box = document.getElementById("waiting-rounds");
  var lookCount = list.filter(function (item) { return item.refused; }).length;
  var waitCount = list.length - lookCount;
  if (status) {
    var line = "";
    if (lookCount) line = text("needs_look", lookCount);
    else if (waitCount) line = text(navigator.onLine ? "sending" : "kept", waitCount);
    else if (sentCount) line = text("sent", sentCount);
    status.textContent = line;
    status.hidden = !line;
    status.classList.toggle("offline-problem", lookCount > 0);
  }
  if (box) {
    box.hidden = !list.length;
    var items = box.querySelector("ol");
    items.innerHTML = "";
    list.forEach(function (item, index) {
      items.appendChild(keptRow(item, index === list.length - 1));
    });
  }
  var standings = document.getElementById("standings");
  if (standings) {
    var note = standings.querySelector(".standings-asof");
    if (list.length) {
      if (!note) {
        note = document.createElement("p");
        note.className = "standings-asof";
        standings.insertBefore(note, standings.firstChild);
      }
      // Before any round is stored the standings are the start's: "As of round 0" read as a fault.
      var stored = list[0].number - 1;
      var waitingNote = text("waiting", list.length);
      note.textContent = stored ? text("as_of", stored).replace("%(waiting)s", waitingNote) : waitingNote;
    } else if (note) {
      note.remove();
    }
  }
}

function button(label, className, onClick) {
  var b = document.createElement("button");
  b.type = "button";
  b.className = className;
  b.textContent = label;
  b.addEventListener("click", onClick);
  return b;
}

function keptRow(item, last) {
  var li = document.createElement("li");
  li.className = item.refused ? "kept needs-look" : "kept";
  var head = document.createElement("strong");
  head.textContent = label(item.number);
  li.appendChild(head);
  if (item.summary) {
    var what = document.createElement("span");
    what.className = "kept-summary";
    what.textContent = item.summary;
    li.appendChild(what);
  }
  // The heading above the rows says they are not sent yet; a row speaks only when refused.
  if (item.refused) {
    var state = document.createElement("small");
    state.className = "kept-state";
    state.textContent = text("look") + " " + item.refused;
    li.appendChild(state);
    li.appendChild(button(text("enter_again"), "secondary", function () { enterAgain(item); }));
    li.appendChild(button(text("discard"), "secondary outline", function () { discard(item); }));
  } else if (last) {
    li.appendChild(button(text("undo"), "secondary", function () { takeBack(item); }));
  }
  return li;
}

// The entry as the server drew it for its next round, so that a kept round leaves it ready for one more.
var blankEntry = null;
var blankNumber = null;

function rememberBlankEntry() {
  var form = section.querySelector("form.round-entry");
  // Not a form on its way (a live poll drew the page meanwhile): htmx has disabled its Save, and a round kept
  // from that save would leave the next round's entry disabled.
  if (!form || form.dataset.keptEntry || form.classList.contains("htmx-request")) return;
  blankEntry = section.innerHTML;
  blankNumber = form.querySelector('input[name="number"]').value;
}

function nextRoundEntry(number) {
  if (blankEntry === null) return;
  section.innerHTML = blankEntry;
  var form = section.querySelector("form.round-entry");
  form.dataset.keptEntry = "1";
  form.querySelector('input[name="number"]').value = String(number);
  // The labels that name the round ("Save round 5") are marked so by the game templates.
  form.querySelectorAll("[data-round-label]").forEach(function (label) {
    label.textContent = label.textContent.replace(blankNumber, String(number));
  });
  drawn(section);
}

// An entry put in by this script is set up as one htmx swapped in: htmx's attributes, and the game's script
// (its htmx.onLoad: Burraco's keypad listens on the new fields).
function drawn(entry) {
  htmx.process(entry);
  htmx.trigger(entry, "htmx:load");
}

// The entry as it was when each round was kept, by the round's key, for Undo to put back (as the
// server's Undo does). Held by this page only: a reload loses it, never a kept round's storage.
var keptEntries = {};

function entryAsTyped(form) {
  var copy = section.cloneNode(true);
  var typed = section.querySelectorAll("input, select, textarea");
  // What was typed or ticked lives in the fields' properties; the copy carries it as attributes.
  copy.querySelectorAll("input, select, textarea").forEach(function (field, i) {
    var from = typed[i];
    if (field.type === "checkbox" || field.type === "radio") field.toggleAttribute("checked", from.checked);
    else if (field.tagName === "SELECT") {
      Array.prototype.forEach.call(field.options, function (option, j) {
        option.toggleAttribute("selected", from.options[j].selected);
      });
    } else if (field.tagName === "TEXTAREA") field.textContent = from.value;
    else field.setAttribute("value", from.value);
  });
  return form.closest("#entry") === section ? copy.innerHTML : null;
}

// Undo of the newest kept round: the entry shows it again, ready to correct and save.
function refill(item) {
  var entry = keptEntries[item.key];
  delete keptEntries[item.key];
  if (!entry || !section.querySelector("form.round-entry")) return;
  section.innerHTML = entry;
  drawn(section);
  var first = section.querySelector("input:not([type=hidden]), select, textarea, button");
  if (first) first.focus({ preventScroll: true });
}

// --- keeping a round

// The read-back line at the top of the screen, as after a save the server answered: what happened, and
// Undo for a kept round. It steps aside after a few seconds, like the server's.
var readbackTimer = null;

function readBack(message, item) {
  var undo = item && button(text("undo"), "secondary undo-now", function () { takeBack(item); });
  var line = showBanner(message, true, undo);
  if (!line) return;
  if (item) line.dataset.keptKey = item.key;
  clearTimeout(readbackTimer);
  readbackTimer = setTimeout(function () { line.classList.add("faded"); }, 8000);
}

function keepRound(form, pairs) {
  var list = waiting();
  var number = Number(field(pairs, "number"));
  if (list.some(function (item) { return item.key === field(pairs, "round_key"); })) return;
  // The time it was played, not the time it reaches the server (the server checks it).
  if (field(pairs, "played_at") === null) pairs.push(["played_at", String(Date.now())]);
  var item = { key: field(pairs, "round_key"), number: number, fields: pairs, summary: describe(pairs),
               where: document.title };
  list.push(item);
  if (!keep(list)) {
    // Nothing was stored anywhere: the entry keeps what was typed, and the phone says so.
    readBack(text("not_kept"), null);
    return;
  }
  keptEntries[item.key] = entryAsTyped(form);
  sentCount = 0;
  nextRoundEntry(number + 1);
  draw();
  readBack(label(number) + (item.summary ? " " + item.summary : "") + " · " + text("not_sent"), item);
  retry.now();
}

// A round struck out of the kept ones, as on a paper sheet: the rounds kept after it move up by one.
function discard(item) {
  var after = false;
  keep(waiting().filter(function (other) {
    if (other.key === item.key) { after = true; return false; }
    if (after) {
      other.number -= 1;
      other.fields = other.fields.map(function (pair) {
        return pair[0] === "number" ? ["number", String(other.number)] : pair;
      });
    }
    return true;
  }));
  var shown = document.querySelector("#banner .kept-readback");
  if (shown) shown.remove();
  var list = waiting();
  // A phone that lost the pencil shows no entry, and gets none back by striking a round out.
  if (section.querySelector("form.round-entry")) {
    nextRoundEntry(list.length ? list[list.length - 1].number + 1 : Number(blankNumber));
  }
  draw();
  if (list.length) retry.now();
}

// Undo of a kept round. The one on its way to the server cannot be called back: it is struck out
// here, and taken back on the server too once the server has answered that it holds it.
var undoWhenSent = null;

function takeBack(item) {
  var list = waiting();
  var newest = list.length && list[list.length - 1].key === item.key;
  if (sending && item.key === sendingKey) {
    // Put back once the server has taken it back and the page is drawn again (see refresh).
    undoWhenSent = item.key;
    if (!newest) delete keptEntries[item.key];
    keep(list.filter(function (other) { return other.key !== item.key; }));
    var shown = document.querySelector("#banner .kept-readback");
    if (shown) shown.remove();
    draw();
    return;
  }
  discard(item);
  if (newest) refill(item);
}

function enterAgain(item) {
  discard(item);
  if (item.summary) showBanner(text("reenter", item.number).replace("%(what)s", item.summary));
}

// --- sending, one at a time, in order; a refused round stops the queue until someone looks

function reasonOf(html) {
  return refusalOf(html) || text("refused");
}

function drain() {
  if (!section || sending) return;
  var list = waiting();
  if (!list.length || list[0].refused) { draw(); return; }
  sending = true;
  var item = list[0];
  sendingKey = item.key;
  draw();
  // With the time it is sent by the same clock: the server counts back from its own time, whatever this one says.
  send(section.dataset.saveUrl, item.fields.concat([["sent_at", String(Date.now())]])).then(function (answer) {
    sending = false;
    sendingKey = null;
    if (answer.status >= 200 && answer.status < 300) {
      retry.reset();
      keep(waiting().filter(function (other) { return other.key !== item.key; }));
      if (undoWhenSent !== item.key) delete keptEntries[item.key];  // stored: no Undo here puts it back
      if (undoWhenSent === item.key) {
        // The Undo tapped while it was on its way: the round the server just stored goes back.
        undoWhenSent = null;
        send(section.dataset.undoUrl, []).then(function () {
          if (waiting().length) retry.now();
          else refresh(function () { refill(item); });
        });
        return;
      }
      sentCount += 1;
      if (waiting().length) { draw(); retry.now(); } else { refresh(); }
    } else if (answer.status >= 400 && answer.status < 500) {
      // Its read-back said it waits to be sent: the list says now why the server did not store it.
      var shown = document.querySelector("#banner .kept-readback");
      if (shown && shown.dataset.keptKey === item.key) shown.remove();
      var now = waiting();
      now.forEach(function (other) {
        if (other.key !== item.key) return;
        other.refused = reasonOf(answer.html);
        other.refusedStatus = answer.status;
      });
      keep(now);
      draw();
    } else {
      if (!answer.status && undoWhenSent === item.key) {
        // Taken back while its answer was lost: the server may hold it or not. It goes back to the head
        // of the queue, to be sent again (its key stores it once) and then taken back on the server.
        keep([item].concat(waiting()));
      }
      draw();
      retry.later();
    }
  });
}

// The server's page, once every kept round is in: its standings, rounds and entry are the truth.
function refresh(then) {
  var sent = sentCount;
  htmx.ajax("GET", window.location.pathname, { target: "body", swap: "innerHTML" }).then(function () {
    sentCount = sent;
    // The status line says how many were sent; the read-back banner repeating it said it twice.
    draw();
    if (then) then();
  });
}

// --- htmx hooks: every save carries a key; while rounds wait (or the phone is offline) a save is kept

function isSave(config) {
  return section && config.verb === "post" && config.path === section.dataset.saveUrl;
}

queueWrites(isSave, "round_key", function () { return waiting().length; }, function (config) {
  keepRound(config.elt.closest("form") || config.elt, pairsOf(config.formData));
});
// While rounds wait, Undo takes back the newest kept round, on this phone alone.
document.addEventListener("htmx:configRequest", function (event) {
  var config = event.detail;
  if (section && config.verb === "post" && config.path === section.dataset.undoUrl && waiting().length) {
    event.preventDefault();
    var list = waiting();
    takeBack(list[list.length - 1]);
  }
});

// A save refused because this phone can no longer enter rounds (the pencil moved, the host ended the
// match; the answer draws no entry): what was typed is kept with the server's reason, to enter again
// or discard, as a kept round refused later would be.
document.addEventListener("htmx:beforeSwap", function (event) {
  var config = event.detail.requestConfig;
  var status = event.detail.xhr ? event.detail.xhr.status : 0;
  if (!config || !isSave(config) || status < 400 || status >= 500) return;
  var answer = new DOMParser().parseFromString(event.detail.serverResponse || "", "text/html");
  if (answer.querySelector("form.round-entry")) return;
  var pairs = pairsOf(config.formData);
  var list = waiting();
  list.push({ key: field(pairs, "round_key"), number: Number(field(pairs, "number")), fields: pairs,
              summary: describe(pairs), refused: reasonOf(event.detail.serverResponse), refusedStatus: status });
  keep(list);
});

// Rounds refused because this phone could not enter rounds then (403: the pencil had moved) go out
// again once it can (its entry is drawn again: the pencil came back), as if never refused.
var entryForm = null;
function retryNotAllowed() {
  var list = waiting();
  var again = false;
  list.forEach(function (item) {
    if (item.refused && item.refusedStatus === 403) {
      delete item.refused;
      delete item.refusedStatus;
      again = true;
    }
  });
  if (again) keep(list);
}

// Set up on every page htmx draws; at once too when app.js brought this script to a page drawn
// already (a phone that follows a match it kept rounds of).
onLoad(function () {
  var found = document.querySelector("#entry[data-offline-match]");
  if (found !== section) {
    section = found;
    sentCount = 0;
    blankEntry = null;
  }
  if (!section) return;
  rememberBlankEntry();
  var form = section.querySelector("form.round-entry");
  if (form && form !== entryForm) retryNotAllowed();
  entryForm = form;
  var list = waiting();
  if (list.length && form && !form.dataset.keptEntry) nextRoundEntry(list[list.length - 1].number + 1);
  draw();
  if (list.length) retry.now();
});

window.addEventListener("online", function () { retry.reset(); draw(); retry.now(); });
window.addEventListener("offline", draw);
