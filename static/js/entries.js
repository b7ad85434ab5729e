// What each game's entry script (static/js/games/<slug>.js) offers the senders every game shares: how it says a
// round kept on the phone (offline.js), and how its entry takes in a row a seated phone sent (seats.js). A game's
// script adds itself here when it runs; a sender reads what the games of its page added.

// By game: function (pairs posted, the entry's data-describe, say) giving what was entered, in the words of the
// server's read-back.
export const describers = {};

// Each: the entry's selector (`entry`), a row's element in it (`row(entry, position)`), filling it with a row's fields
// (`fill(row, position, fields)`), what follows once the rows are in (`filled(entry)`), and the element of the row
// below which "sent from" is said (`after`).
export const rowWidgets = [];
