// Service worker: keeps the app shell and static files so a lost connection shows a clear page.
"use strict";

var SHELL = "companion-shell-v3";
var OFFLINE_URL = "/offline";

self.addEventListener("install", function (event) {
  event.waitUntil(
    caches.open(SHELL).then(function (cache) {
      return cache.addAll([OFFLINE_URL, "/manifest.webmanifest"]).then(function () {
        return cache.match(OFFLINE_URL);
      }).then(function (page) {
        return page ? page.text() : "";
      }).then(function (html) {
        // The bundles the offline page loads, as its head names them: the offline sender among them, which
        // lists the rounds kept on the phone, though this phone may never have opened a page with it.
        var named = html.match(/(?:href|src)="\/bundle\/[^"]+"/g) || [];
        return cache.addAll(named.map(function (attribute) { return attribute.split('"')[1]; }));
      });
    }).then(function () { return self.skipWaiting(); })
  );
});

self.addEventListener("activate", function (event) {
  event.waitUntil(
    caches.keys().then(function (keys) {
      return Promise.all(keys.filter(function (key) { return key !== SHELL; })
        .map(function (key) { return caches.delete(key); }));
    }).then(function () { return self.clients.claim(); })
  );
});

self.addEventListener("fetch", function (event) {
  var request = event.request;
  var url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.method === "POST" && request.headers.get("X-Answer-Is-Page") === "true") {
    event.respondWith(fetch(request).then(keepPageAnswered));
    return;
  }
  if (request.method !== "GET") return;

  // Static files and the bundles have fingerprinted names: once cached they are right forever.
  if (url.pathname.indexOf("/static/") === 0 || url.pathname.indexOf("/bundle/") === 0) {
    event.respondWith(
      caches.match(request).then(function (hit) {
        return hit || fetch(request).then(function (response) { return kept(request, response); });
      })
    );
    return;
  }

  // Pages always come from the server (scores must be current); offline, the last copy or the offline page.
  // A boosted link (htmx) asks for the same whole page: its copy is kept too, so a match page
  // reached by a tap still opens offline, with the rounds kept on the phone (offline.js).
  var boosted = request.headers.get("HX-Boosted") === "true";
  if (request.mode === "navigate" || boosted) {
    var page = pageKey(url);
    event.respondWith(
      fetch(request).then(function (response) { return kept(page, response); }).catch(function () {
        return caches.match(page, { ignoreVary: true }).then(function (hit) {
          return hit || (boosted ? Response.error() : caches.match(OFFLINE_URL));
        });
      })
    );
  }
});

// A write whose answer is a page, drawn in place with the address it pushes (the move to a club's next table, whose
// form says so): its copy is kept under that address, as a page opened is, so that the table's phone opens it again
// without the network (no GET of it ever passed here). Other writes are left alone, the worker's time spared them.
function keepPageAnswered(response) {
  var shown = response.headers.get("HX-Push-Url");
  return shown && shown !== "false" ? kept(pageKey(new URL(shown, self.location.origin)), response) : response;
}

// A page's copy is kept under its address alone, whatever asked for it (a navigation, a boosted link, a write).
function pageKey(url) {
  return new Request(url.pathname + url.search);
}

// The answer, a copy of it kept under `key` when it is a good one.
function kept(key, response) {
  if (response.ok) {
    var copy = response.clone();
    caches.open(SHELL).then(function (cache) { cache.put(key, copy); });
  }
  return response;
}
