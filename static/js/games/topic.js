// Topic_ round entry: penalty cards are kept as hidden "penalty" fields of the form, so a save,
// a redraw after an error and the correction page all read them back from the form itself.
import { describers } from "../entries.js";

function fieldsOf(entry) {
  return entry.querySelector(".topic-penalty-fields");
}

function inputsFor(entry, name) {
  return Array.prototype.filter.call(
    fieldsOf(entry).querySelectorAll('input[name="penalty"]'),
    function (input) { return input.value === name; }
  );
}

// Redraw one player's badge and take-back button from the hidden fields.
function redraw(entry, name) {
  var count = inputsFor(entry, name).length;
  entry.querySelectorAll(".topic-penalty").forEach(function (slot) {
    if (slot.dataset.topicName !== name) return;
    slot.classList.toggle("topic-penalised", count > 0);
    slot.querySelector(".topic-count").textContent = count ? String(count) : "";
    slot.querySelector(".topic-penalty-drop").hidden = count === 0;
  });
}

document.addEventListener("click", function (event) {
  var add = event.target.closest("[data-topic-penalty]");
  var drop = event.target.closest("[data-topic-unpenalty]");
  var button = add || drop;
  if (!button) return;
  var entry = button.closest(".topic-entry");
  if (!entry) return;
  var name = add ? add.dataset.topicPenalty : drop.dataset.topicUnpenalty;
  if (add) {
    var input = document.createElement("input");
    input.type = "hidden";
    input.name = "penalty";
    input.value = name;
    fieldsOf(entry).appendChild(input);
  } else {
    var inputs = inputsFor(entry, name);
    if (inputs.length) inputs[inputs.length - 1].remove();
  }
  redraw(entry, name);
});

// What a Topic_ round kept on the phone says (offline.js), as the server's read-back says what was entered
// (TopicEntry.describe_round, held to it by tests/e2e/test_readback_parity.py): who takes cards, in seat
// order, with the penalty cards among them. The cards left in the deck are the server's to say.
describers.topic = function (pairs, match, say) {
  // The non-blank values posted under a name, trimmed, each the seated name it spells.
  function named(key) {
    return pairs.filter(function (pair) { return pair[0] === key && pair[1].trim(); }).map(function (pair) {
      var given = pair[1].trim();
      var seated = match.players.filter(function (name) { return name.toLowerCase() === given.toLowerCase(); });
      return match.players.indexOf(given) >= 0 ? given : seated.length ? seated[0] : given;
    });
  }
  var losers = named(named("several").length ? "losers" : "loser");
  var penalties = named("penalty");
  function count(list, name) { return list.filter(function (other) { return other === name; }).length; }
  return match.players.map(function (name) {
    var penalised = count(penalties, name);
    var took = count(losers, name) + penalised;
    if (!took) return "";
    var said = say("topic.took", { name: name, num: took });
    return penalised ? said + " (" + say("topic.penalties", { num: penalised }) + ")" : said;
  }).filter(Boolean).join(" · ");
};
