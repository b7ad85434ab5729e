// What a phone that writes needs beside app.js: the key of a save or a row sent, the reason of a refusal, and the
// writes that got no answer. Imported by the offline sender and the seats' rows, so it travels in their bundle, which
// only the pages that enter rounds load (assets.py).

// A version 4 UUID from getRandomValues, which phones offer on plain HTTP too (randomUUID is HTTPS only): the key
// a save or a row sent carries, which the server stores it under once.
export function newKey() {
  var bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  var hex = Array.prototype.map.call(bytes, function (b) { return (b + 256).toString(16).slice(1); }).join("");
  return [hex.slice(0, 8), hex.slice(8, 12), hex.slice(12, 16), hex.slice(16, 20), hex.slice(20)].join("-");
}

// Why the server refused a write, as its answer says it ("" when it says nothing a phone can show).
export function reasonOf(html) {
  var doc = new DOMParser().parseFromString(html || "", "text/html");
  var found = doc.querySelectorAll('[role="alert"], .field-error, .error-message');
  var reasons = [];
  found.forEach(function (el) {
    // Not a warning the page keeps hidden until a tap calls for it (a row's "all cards in the rows").
    if (el.closest("[hidden]")) return;
    // What the answer says, not the buttons and links it offers beside it.
    var words = el.cloneNode(true);
    words.querySelectorAll("form, button, a").forEach(function (offer) { offer.remove(); });
    var said = words.textContent.replace(/\s+/g, " ").trim();
    if (said && reasons.indexOf(said) < 0) reasons.push(said);
  });
  return reasons.join(" ");
}

// A write that got no answer — the network gone, a timeout, or a proxy's 502/503/504 (the app server it chose
// stopped or died) — is handed to `keep`, when `mine` says the request is the caller's, before any other
// listener warns of it: the caller keeps it on the phone and sends it again (its key makes that safe if the
// server stored it before the answer was lost).
export function onUnanswered(mine, keep) {
  function kept(event) {
    var config = event.detail.requestConfig;
    if (!config || !mine(config)) return;
    keep(config);
    event.stopImmediatePropagation();
  }
  document.addEventListener("htmx:sendError", kept, true);
  document.addEventListener("htmx:timeout", kept, true);
  document.addEventListener("htmx:responseError", function (event) {
    var status = event.detail.xhr && event.detail.xhr.status;
    if (status >= 502 && status <= 504) kept(event);
  }, true);
}
