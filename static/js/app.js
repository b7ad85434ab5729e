// Small behaviours shared by every page; game entry widgets live in their own files.
(function () {
  "use strict";
})();
