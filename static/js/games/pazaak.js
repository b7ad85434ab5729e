// Pazaak on the phone: what a quick result kept on the phone says (offline.js), the words of the button tapped.
(function () {
  "use strict";
  window.Companion.describeRound.pazaak = function (form, pairs) {
    var winner = pairs.filter(function (pair) { return pair[0] === "winner"; }).map(function (pair) { return pair[1]; })[0];
    var button = winner === undefined ? null : form.querySelector('button[name="winner"][value="' + winner + '"]');
    return button ? button.textContent.trim() : "";
  };
})();
