// Pazzaparola: the settings steppers, and the round entry's chips, shared keypad and live scores.
// One set of delegated listeners serves every swap of the entry.
import { describers, rowWidgets } from "../entries.js";

function each(root, selector, fn) {
  Array.prototype.forEach.call(root.querySelectorAll(selector), fn);
}

// --- settings: −/+ steppers ---------------------------------------------------------
function step(button) {
  var group = button.closest(".pz-stepper");
  var input = group.querySelector(".pz-step-value");
  var lo = parseInt(group.dataset.min, 10);
  var hi = parseInt(group.dataset.max, 10);
  var value = parseInt(input.value, 10);
  value = Math.min(hi, Math.max(lo, (isNaN(value) ? lo : value) + parseInt(button.dataset.step, 10)));
  input.value = String(value);
  each(group, "[data-step]", function (b) {
    b.disabled = b.dataset.step < 0 ? value <= lo : value >= hi;
  });
}

// --- round entry ----------------------------------------------------------------------
function rowsOf(entry) {
  return Array.prototype.slice.call(entry.querySelectorAll(".pz-row"));
}

function activeRow(entry) {
  return entry.querySelector(".pz-row.pz-active") || entry.querySelector(".pz-row");
}

function activate(row, scroll) {
  var entry = row.closest(".pz-entry");
  rowsOf(entry).forEach(function (other) {
    var on = other === row;
    other.classList.toggle("pz-active", on);
    other.querySelector(".pz-pick").setAttribute("aria-pressed", on ? "true" : "false");
  });
  entry.querySelector(".pz-active-field").value = row.dataset.index;
  entry.querySelector(".pz-active-name").textContent = row.dataset.name;
  if (scroll) row.scrollIntoView({ block: "nearest" });
}

// Mirrors the chip markup of _entry.html, hidden input included, so a save posts it.
// A row never holds more cards than were dealt: a card more is refused, and the reason
// shows next to that row, scrolled clear of the tray (the rows' scroll margins).
function addChip(row, points) {
  var cards = parseInt(row.closest(".pz-entry").dataset.cards, 10);
  if (row.querySelectorAll(".pz-chip input").length >= cards) {
    row.querySelector(".pz-full").hidden = false;
    row.scrollIntoView({ block: "nearest" });
    return;
  }
  var chip = document.createElement("button");
  chip.type = "button";
  chip.className = "pz-chip";
  chip.setAttribute("aria-label", row.dataset.chipLabel.replace("{points}", points));
  var input = document.createElement("input");
  input.type = "hidden";
  input.name = "used-" + row.dataset.index;
  input.value = String(points);
  chip.appendChild(input);
  chip.appendChild(document.createTextNode(String(points)));
  var chips = row.querySelector(".pz-chips");
  chips.insertBefore(chip, chips.querySelector(".pz-empty"));
  changed(row);
}

// The server's message was about the row as it was sent; once the row changes it is stale. A row changed
// here is the scorekeeper's: a row its player sends again no longer fills it in (seats.js).
function changed(row) {
  row.dataset.changedHere = "1";
  var stale = row.querySelector(".pz-server-error");
  if (stale) stale.remove();
  refresh(row.closest(".pz-entry"));
}

function refresh(entry) {
  var cards = parseInt(entry.dataset.cards, 10);
  var entered = false;
  var scored = rowsOf(entry).map(function (row) {
    var inputs = row.querySelectorAll(".pz-chip input");
    var sum = 0;
    Array.prototype.forEach.call(inputs, function (input) {
      var points = parseInt(input.value, 10);
      if (!isNaN(points)) sum += points;
    });
    var unused = cards - inputs.length;
    if (inputs.length) entered = true;
    row.querySelector(".pz-unused").textContent = String(unused);
    row.querySelector(".pz-score-num").textContent = String(sum - unused);
    row.querySelector(".pz-empty").hidden = inputs.length > 0;
    row.querySelector(".pz-too-many").hidden = unused >= 0 || !!row.querySelector(".pz-server-error");
    return { row: row, score: sum - unused };
  });
  var top = Math.max.apply(null, scored.map(function (s) { return s.score; }));
  var names = [];
  scored.forEach(function (s) {
    var lead = entered && s.score === top;
    s.row.classList.toggle("pz-lead", lead);
    s.row.querySelector(".pz-star").hidden = !lead;
    if (lead) names.push(s.row.dataset.name);
  });
  var tie = names.length > 1 ? " (" + entry.dataset.tie + ")" : "";
  // A live region: written only when who takes the point changes, or each key press would have it read again.
  var point = entry.querySelector(".pz-point"), said = names.length ? "★ " + names.join(", ") + tie : "";
  if (point.textContent !== said) point.textContent = said;
}

// The "other value" keypad: up to two digit taps compose 0–99.
function composing(entry, on) {
  var keys = entry.querySelector(".pz-keys"), compose = entry.querySelector(".pz-compose");
  var focused = keys.contains(document.activeElement) || compose.contains(document.activeElement);
  keys.hidden = on;
  compose.hidden = !on;
  setComposed(entry, "");
  // A keyboard's focus goes on in the keypad shown: the key it pressed was hidden with its own.
  if (focused) (on ? compose.querySelector("button[data-digit]") : keys.querySelector(".pz-other")).focus({ preventScroll: true });
}

function setComposed(entry, text) {
  entry.querySelector(".pz-composed").textContent = text;
  entry.querySelector(".pz-add").disabled = text === "";
}

function onEntryClick(entry, target) {
  var button = target.closest("button");
  var row = target.closest(".pz-row");
  var composed = entry.querySelector(".pz-composed").textContent;
  // The last save's read-back gives its room back to the keypad once the next round begins.
  var readback = entry.querySelector(".pz-saved");
  if (readback) readback.remove();
  // A refused card's reason answers that one tap; the next tap starts afresh.
  each(entry, ".pz-full", function (message) { message.hidden = true; });
  if (button && button.classList.contains("pz-chip")) {
    button.remove();
    activate(row, false);
    changed(row);
  } else if (row) {
    if (!row.classList.contains("pz-active")) activate(row, false);
  } else if (!button) {
    return;
  } else if (button.dataset.points) {
    addChip(activeRow(entry), parseInt(button.dataset.points, 10));
  } else if (button.classList.contains("pz-next")) {
    var rows = rowsOf(entry);
    activate(rows[(rows.indexOf(activeRow(entry)) + 1) % rows.length], true);
  } else if (button.classList.contains("pz-other")) {
    composing(entry, true);
  } else if (button.dataset.digit) {
    if (composed.length < 2) setComposed(entry, String(parseInt(composed + button.dataset.digit, 10)));
  } else if (button.classList.contains("pz-back")) {
    setComposed(entry, composed.slice(0, -1));
  } else if (button.classList.contains("pz-cancel")) {
    composing(entry, false);
  } else if (button.classList.contains("pz-add") && composed !== "") {
    addChip(activeRow(entry), parseInt(composed, 10));
    composing(entry, false);
  }
}

// The rows the seated phones sent fill the scorekeeper's entry in (seats.js), a row changed here excepted.
rowWidgets.push({
  entry: ".pz-entry",
  after: ".pz-row-head",
  row: function (entry, position) { return entry.querySelector('.pz-row[data-index="' + position + '"]'); },
  fill: function (row, position, fields) {
    each(row, ".pz-chip", function (chip) { chip.remove(); });
    (fields["used-" + position] || []).forEach(function (points) { addChip(row, points); });
    row.querySelector(".pz-word").value = (fields["word-" + position] || [""])[0];
  },
  filled: refresh
});

document.addEventListener("click", function (event) {
  var target = event.target;
  if (!(target instanceof Element)) return;
  var stepButton = target.closest(".pz-stepper [data-step]");
  if (stepButton) {
    step(stepButton);
    return;
  }
  var entry = target.closest(".pz-entry");
  if (entry) onEntryClick(entry, target);
});

document.addEventListener("input", function (event) {
  var row = event.target instanceof Element && event.target.closest(".round-entry .pz-row");
  if (row) row.dataset.changedHere = "1";
});

// Enter (Go/Done on a phone) in the theme or a word closes the keyboard instead of saving; Escape closes the
// "other value" keypad.
document.addEventListener("keydown", function (event) {
  var target = event.target;
  var compose = event.key === "Escape" && target instanceof Element && target.closest(".pz-compose");
  if (compose && !compose.hidden) {
    composing(compose.closest(".pz-entry"), false);
    return;
  }
  if (event.key === "Enter" && target instanceof HTMLInputElement && target.closest(".pz-entry")) {
    event.preventDefault();
    target.blur();
  }
});

// What a Pazzaparola round kept on the phone says (offline.js), as the server's read-back says it
// (PazzaparolaEntry.describe_round, held to it by tests/e2e/test_readback_parity.py): each player's word
// score in seat order, the point's takers starred.
describers.pazzaparola = function (pairs, match) {
  var cards = match.settings.cards;
  var scores = match.players.map(function (name, index) {
    var used = pairs.filter(function (pair) { return pair[0] === "used-" + index; }).map(function (pair) {
      return parseInt(pair[1].trim().replace("\u2212", "-"), 10);
    });
    // The upper row's points, less one per card left in the lower row.
    return used.reduce(function (total, points) { return total + points; }, 0) - Math.max(cards - used.length, 0);
  });
  var top = Math.max.apply(null, scores);
  return match.players.map(function (name, index) {
    return name + " " + scores[index] + (scores[index] === top ? " \u2605" : "");
  }).join(", ");
};
