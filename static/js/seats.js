// Rows sent from the seated phones: on the scorekeeper's page each game's entry widget fills its rows in with them;
// on a seated phone, a row that cannot reach the server waits on the phone and goes out by itself once it can.
import { htmx } from "../vendor/htmx/htmx.min.js";
import { onLoad } from "./app.js";
import { rowWidgets } from "./entries.js";
import { field, kept, keep as keepList, pairsOf, queueWrites, reasonOf, retrier, send } from "./outbox.js";

function hidden(row, name) {
  var input = document.createElement("input");
  input.type = "hidden";
  input.name = name;
  row.appendChild(input);
  return input;
}

// The rows as the scorekeeper's live block brings them (_rows_in.html). Each game's entry widget says, in
// `rowWidgets` (entries.js), how to find a row's element in its entry and fill it with a row's fields. A row
// newer than the one its element shows is filled in, unless the scorekeeper changed it here
// (`data-changed-here`): then Save is refused with the row as sent, to check, as the server compares the
// revision kept beside the row with the one it holds.
function fillIn() {
  var source = document.querySelector("#live [data-sent-rows]");
  if (!source) return;
  var sent = JSON.parse(source.dataset.sentRows);
  // Only into the entry of the round they were sent for: with rounds kept on this phone, the entry is of a round the
  // server has not reached yet.
  var number = document.querySelector('form.round-entry input[name="number"]');
  if (!number || number.value !== source.dataset.round) return;
  rowWidgets.forEach(function (widget) {
    var entry = document.querySelector("form.round-entry " + widget.entry);
    if (!entry) return;
    Object.keys(sent).forEach(function (position) {
      var row = widget.row(entry, position);
      var rev = row && row.querySelector('input[name="sent-rev-' + position + '"]');
      if (!row || row.dataset.changedHere || (rev && parseInt(rev.value, 10) >= sent[position].rev)) return;
      widget.fill(row, position, sent[position].fields);
      delete row.dataset.changedHere;
      if (!rev) {
        rev = hidden(row, "sent-rev-" + position);
        hidden(row, "sent-by-" + position);
      }
      rev.value = String(sent[position].rev);
      row.querySelector('input[name="sent-by-' + position + '"]').value = sent[position].by;
      var by = row.querySelector(".sent-by");
      if (!by) {
        by = document.createElement("p");
        by.className = "sent-by muted";
        row.querySelector(widget.after).after(by);
      }
      by.textContent = entry.dataset.sentFrom.replace("{phone}", sent[position].by);
    });
    widget.filled(entry);
  });
}

document.addEventListener("htmx:afterSettle", function (event) {
  if (event.target instanceof Element && event.target.id === "live") fillIn();
});
// And an entry drawn without a poll (offline.js puts back the round a kept one was refused for): its rows came already.
onLoad(function (root) {
  if (root.querySelector && root.querySelector("form.round-entry")) fillIn();
});

// --- On a seated phone: the rows it could not send, in the outbox per match, oldest first, one per round (a row
// sent again for its round replaces the one waiting). Each goes out once the server can be reached, in order, under
// the key made for its send (the server stores a send once, so a lost answer costs nothing). A row refused (its
// round saved meanwhile, its seat freed) stays, saying why, until the player discards it.
var ROW_PREFIX = "companion.rows.";
var retry = retrier(sendWaiting);
var sending = false;

function rowForm() { return document.querySelector("#entry form.seat-row-entry"); }

function storeName() {
  var section = document.querySelector("#entry[data-offline-match]");
  return section ? ROW_PREFIX + section.dataset.offlineMatch : null;
}

function waiting() {
  var name = storeName();
  return name ? kept(name) : [];
}

// A storage full or closed keeps nothing: the row stays in the form, drawn as not sent.
function keep(list) {
  var name = storeName();
  if (name) keepList(name, list);
}

function isRowSend(config) {
  return config && config.verb === "post" && config.elt && config.elt.closest &&
    config.elt.closest("form.seat-row-entry");
}

function keepSend(config) {
  var pairs = pairsOf(config.formData);
  var number = Number(field(pairs, "number"));
  var list = waiting().filter(function (row) { return row.number !== number; });
  list.push({ number: number, url: config.path, fields: pairs });
  list.sort(function (a, b) { return a.number - b.number; });
  keep(list);
  draw();
  retry.later();
}

function draw() {
  var form = rowForm();
  var box = document.getElementById("seat-rows-kept");
  var list = waiting();
  if (!form || !list.length) {
    if (box) box.remove();
    return;
  }
  if (!box) {
    box = document.createElement("div");
    box.id = "seat-rows-kept";
    form.insertBefore(box, form.firstChild);
  }
  box.innerHTML = "";
  list.forEach(function (row) {
    var line = document.createElement("p");
    line.className = row.refused ? "seat-row-kept needs-look" : "seat-row-kept";
    line.setAttribute("role", row.refused ? "alert" : "status");
    line.textContent = row.refused ? form.dataset.look.replace("{reason}", row.refused) : form.dataset.kept;
    if (row.refused) {
      var discard = document.createElement("button");
      discard.type = "button";
      discard.className = "secondary outline";
      discard.textContent = form.dataset.discard;
      discard.addEventListener("click", function () {
        keep(waiting().filter(function (other) { return other.number !== row.number; }));
        draw();
      });
      line.appendChild(discard);
    }
    box.appendChild(line);
  });
}

function sendWaiting() {
  var form = rowForm();
  var row = waiting().filter(function (one) { return !one.refused; })[0];
  if (!form || !row || sending) return;
  sending = true;
  send(row.url, row.fields).then(function (answer) {
    sending = false;
    var list = waiting();
    if (answer.status >= 200 && answer.status < 300) {
      retry.reset();
      keep(list.filter(function (other) { return other.number !== row.number; }));
      var entry = document.getElementById("entry");
      if (entry) htmx.swap(entry, answer.html, { swapStyle: "innerHTML" });
      if (waiting().some(function (other) { return !other.refused; })) sendWaiting();
    } else if (answer.status >= 400 && answer.status < 500) {
      list.forEach(function (other) {
        if (other.number === row.number) other.refused = reasonOf(answer.html) || form.dataset.refused;
      });
      keep(list);
      draw();
      sendWaiting();
    } else {
      retry.later();
    }
  });
}

// Behind rows still waiting (not those refused), a row waits too.
queueWrites(isRowSend, "row_key", function () { return waiting().some(function (row) { return !row.refused; }); }, keepSend);

// Drawn again on every swap of the entry (each round, each poll that moves it); a row waiting from an earlier
// visit is sent once this page can.
onLoad(function () {
  draw();
  if (!retry.pending() && !sending && waiting().some(function (row) { return !row.refused; })) retry.later();
});
window.addEventListener("online", function () {
  retry.reset();
  retry.now();
});
