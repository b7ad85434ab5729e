// Behaviours shared by every page; game entry widgets live in static/js/games/.
(function () {
  "use strict";

  // Live followers send the version they show, so an unchanged match costs a bodiless 304.
  document.addEventListener("htmx:configRequest", function (event) {
    var el = event.detail.elt;
    if (el.hasAttribute("data-live") && el.dataset.etag) {
      event.detail.headers["If-None-Match"] = el.dataset.etag;
    }
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    var el = event.detail.elt;
    var xhr = event.detail.xhr;
    if (el.hasAttribute("data-live") && xhr) {
      var tag = xhr.getResponseHeader("ETag");
      if (tag) el.dataset.etag = tag;
    }
  });

  // A request that never reached the server, or a server failure, must not look like a save.
  function warn(message) {
    var slot = document.getElementById("banner");
    if (!slot) return;
    slot.innerHTML = "";
    var p = document.createElement("p");
    p.className = "readback failed";
    p.setAttribute("role", "alert");
    p.textContent = message;
    slot.appendChild(p);
  }
  document.addEventListener("htmx:sendError", function (event) {
    if (event.detail.elt.hasAttribute("data-live")) return;
    warn("Not saved: the server cannot be reached. What you entered is still here — tap Save again.");
  });
  document.addEventListener("htmx:responseError", function (event) {
    if (event.detail.xhr && event.detail.xhr.status >= 500) {
      warn("Not saved: the server had a problem. What you entered is still here — tap Save again.");
    }
  });

  // The read-back banner steps aside after a few seconds.
  htmx.onLoad(function (root) {
    var banners = root.querySelectorAll ? root.querySelectorAll("[data-fade]") : [];
    banners.forEach(function (banner) {
      setTimeout(function () { banner.classList.add("faded"); }, 8000);
    });
  });
})();
