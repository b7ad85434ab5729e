// What a Pazaak set kept on the phone says (offline.js), as the server's read-back says it
// (PazaakEntry.describe_round, held to it by tests/e2e/test_readback_parity.py): who won the set or that it
// was tied, with the table totals when the calculator decided it. The sets won are the server's to say.
import { showBanner } from "../app.js";
import { describers } from "../entries.js";

// The calculator's taps are played on the server: one that cannot reach it is not kept, as a set's result saved is.
// Its own words take the place of those app.js says of every other tap (that what is saved is kept).
document.addEventListener("htmx:sendError", function (event) {
  var own = event.detail.elt.closest("[data-unreached-says]");
  var line = own && showBanner(own.dataset.unreachedSays);
  if (line) line.dataset.unreached = "";
});

var LIMIT = 20;
var TABLE_SIZE = 9;
var TIEBREAKER = "T\u00b11";

// The set as the calculator left it (its state, in the `table` field): the totals, who filled the table,
// the one player who played the Tiebreaker; the winner as games/pazaak/rules.py decide_set finds it.
function decided(players, state) {
  var totals = state.tables.map(function (table) {
    return table.cards.reduce(function (total, card) { return total + card.value; }, 0);
  });
  var bust = [0, 1].filter(function (seat) { return totals[seat] > LIMIT; });
  var filled = [0, 1].filter(function (seat) {
    return state.tables[seat].cards.length === TABLE_SIZE && totals[seat] <= LIMIT;
  });
  var holders = [0, 1].filter(function (seat) {
    return state.tables[seat].cards.some(function (card) { return card.hand === TIEBREAKER; });
  });
  var found = { totals: totals, winner: null, how: "tie" };
  if (bust.length) { found.winner = 1 - bust[0]; found.how = "bust"; }
  else if (filled.length) { found.winner = filled[0]; found.how = "filled"; }
  else if (totals[0] !== totals[1]) { found.winner = totals[0] > totals[1] ? 0 : 1; found.how = "outscore"; }
  else if (holders.length === 1) { found.winner = holders[0]; found.how = "tiebreaker"; }
  return found;
}

describers.pazaak = function (pairs, match, say) {
  function posted(name) {
    for (var i = 0; i < pairs.length; i++) if (pairs[i][0] === name) return pairs[i][1];
    return null;
  }
  var players = match.players;
  var set = null;
  var winner;
  if (posted("source") === "table") {
    set = decided(players, JSON.parse(posted("table")));
    winner = set.winner === null ? null : players[set.winner];
  } else {
    var seat = posted("winner");
    winner = seat === "tie" ? null : players[parseInt(seat, 10)];
  }
  var said = winner === null ? say("pazaak.tied", {}) : say("pazaak.wins", { name: winner });
  if (!set) return said;
  var table = players.map(function (name, index) { return name + " " + set.totals[index]; }).join(", ");
  return said + " (" + table + (set.how === "tiebreaker" ? " \u00b7 " + say("pazaak.tiebreaker", {}) : "") + ")";
};
