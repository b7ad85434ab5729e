// Behaviours shared by every page; game entry widgets live in static/js/games/.
(function () {
  "use strict";

  // Live followers send the version they show, so an unchanged match costs a bodiless 304.
  document.addEventListener("htmx:configRequest", function (event) {
    var el = event.detail.elt;
    if (el.hasAttribute("data-live") && el.dataset.etag) {
      event.detail.headers["If-None-Match"] = el.dataset.etag;
    }
    // What the match page's entry shows: the answer draws it again once the pencil or the match moved on.
    var shows = el.id === "live" && document.querySelector("#entry [data-entry-shows]");
    if (shows) event.detail.headers["X-Entry-Shows"] = shows.dataset.entryShows;
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    var el = event.detail.elt;
    var xhr = event.detail.xhr;
    if (el.hasAttribute("data-live") && xhr) {
      var tag = xhr.getResponseHeader("ETag");
      if (tag) el.dataset.etag = tag;
    }
    // The scorekeeper's own save already drew the version it made: its poll need not fetch it again.
    var made = xhr && xhr.getResponseHeader("X-Live-ETag");
    var live = made && document.getElementById("live");
    if (live) live.dataset.etag = made;
  });

  // A request that never reached the server, or a server failure, must not look like a save.
  // (A round save that cannot be sent is kept on the phone by offline.js, which says so itself.)
  function text(key) {
    return window.Companion && window.Companion.text ? window.Companion.text(key) : key;
  }
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
    var el = event.detail.elt;
    if (el.hasAttribute("data-live")) {
      el.classList.add("reconnecting");
      return;
    }
    warn(text("needs_server"));
  });
  document.addEventListener("htmx:responseError", function (event) {
    if (event.detail.xhr && event.detail.xhr.status >= 500) warn(text("server_failed"));
  });
  // A viewer's phone says when it lost the connection, and catches up by itself on the next poll.
  document.addEventListener("htmx:afterRequest", function (event) {
    var el = event.detail.elt;
    if (el.hasAttribute("data-live") && event.detail.successful) el.classList.remove("reconnecting");
  });

  // A page's own scripts (the history's calendar) are modules it names in data-page-scripts:
  // fetched once that page has loaded, so no other page, and not its own first drawing, pays them.
  var pageScripts = {};
  function loadPageScripts() {
    document.querySelectorAll("[data-page-scripts]").forEach(function (element) {
      element.dataset.pageScripts.split(" ").forEach(function (url) {
        if (url && !pageScripts[url]) {
          pageScripts[url] = import(url).catch(function () { delete pageScripts[url]; });
        }
      });
    });
  }
  htmx.onLoad(function () {
    if (document.readyState === "complete") loadPageScripts();
    else window.addEventListener("load", loadPageScripts, { once: true });
  });

  // A rounds or records table wider than the screen says so above it; a rounds table also fades at the
  // edge it continues past.
  function markScrolling(box) {
    var hint = box.previousElementSibling;
    var scrolls = box.scrollWidth > box.clientWidth + 1;
    box.classList.toggle("scrolls", scrolls);
    box.classList.toggle("scrolled-to-end", box.scrollLeft + box.clientWidth >= box.scrollWidth - 1);
    if (hint && hint.hasAttribute("data-scroll-hint")) hint.hidden = !scrolls;
  }
  function markAllScrolling() {
    document.querySelectorAll("[data-scroll-hint] + .rounds-scroll, [data-scroll-hint] + .table-scroll").forEach(markScrolling);
  }
  htmx.onLoad(markAllScrolling);
  window.addEventListener("resize", markAllScrolling);
  document.addEventListener("scroll", function (event) {
    var box = event.target.classList ? event.target : null;
    if (box && (box.classList.contains("rounds-scroll") || box.classList.contains("table-scroll"))) markScrolling(box);
  }, true);

  // What sticks to the top of the screen below the read-back banner (a desktop's keypad) reads its
  // height from --banner-height: a read-back may take one line or three.
  var bannerHeight = window.ResizeObserver && new ResizeObserver(function (entries) {
    entries.forEach(function (entry) {
      document.documentElement.style.setProperty("--banner-height", entry.target.offsetHeight + "px");
    });
  });
  htmx.onLoad(function () {
    var slot = document.getElementById("banner");
    if (bannerHeight && slot && !slot.dataset.measured) {
      slot.dataset.measured = "1";
      bannerHeight.observe(slot);
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

// Installable app: the service worker keeps the shell for a clear offline page.
(function () {
  "use strict";
  if ("serviceWorker" in navigator && window.isSecureContext) {
    window.addEventListener("load", function () {
      navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(function () {});
    });
  }
})();

// Keep the screen on during a match, where the browser allows it (HTTPS or localhost).
(function () {
  "use strict";
  var lock = null;
  var wanted = localStorage.getItem("wake") !== "off";

  function show(button) {
    button.setAttribute("aria-pressed", lock ? "true" : "false");
    button.textContent = lock ? button.dataset.on : button.dataset.off;
  }
  function acquire(button) {
    if (!("wakeLock" in navigator) || !wanted) { show(button); return; }
    navigator.wakeLock.request("screen").then(function (sentinel) {
      lock = sentinel;
      lock.addEventListener("release", function () { lock = null; show(button); });
      show(button);
    }).catch(function () { lock = null; show(button); });
  }
  htmx.onLoad(function (root) {
    var button = root.querySelector ? root.querySelector("[data-wake]") : null;
    if (!button) return;
    if (!("wakeLock" in navigator)) {
      button.disabled = true;
      button.textContent = button.dataset.unsupported;
      return;
    }
    button.addEventListener("click", function () {
      wanted = !lock;
      localStorage.setItem("wake", wanted ? "on" : "off");
      if (lock) { lock.release(); } else { acquire(button); }
    });
    // The tools are redrawn after every save: keep the lock we hold, just show it.
    if (lock) { show(button); } else { acquire(button); }
  });
  // The browser drops the lock when the page is hidden; take it again on return.
  document.addEventListener("visibilitychange", function () {
    var button = document.querySelector("[data-wake]");
    if (button && document.visibilityState === "visible" && !lock) acquire(button);
  });
})();
