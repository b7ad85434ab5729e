// Rows sent from the seated phones, on the scorekeeper's page: each game's entry widget fills its rows in with them.
(function () {
  "use strict";
  if (!window.Companion.once("seats")) return;

  function hidden(row, name) {
    var input = document.createElement("input");
    input.type = "hidden";
    input.name = name;
    row.appendChild(input);
    return input;
  }

  // The rows as the scorekeeper's live block brings them (_rows_in.html). Each game's entry widget says, in
  // `Companion.sentRowWidgets` (whichever page first brought it, as it runs once), how to find a row's element in
  // its entry and fill it with a row's fields. A row newer than the one its element shows is filled in, unless
  // the scorekeeper changed it here (`data-changed-here`): then Save is refused with the row as sent, to check,
  // as the server compares the revision kept beside the row with the one it holds.
  function fillIn() {
    var source = document.querySelector("#live [data-sent-rows]");
    if (!source) return;
    var sent = JSON.parse(source.dataset.sentRows);
    (window.Companion.sentRowWidgets || []).forEach(function (widget) {
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
})();
