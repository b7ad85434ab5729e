// The outbox: the writes a phone could not get answered (the scorekeeper's rounds, a seat's rows, a club table's
// confirmations and calls), kept on the phone and sent again by themselves once the server answers. Imported by the
// offline sender, the seats' rows and the club's script, so it travels in their bundles, which only the pages that
// write so load (assets.py).
import { htmx } from "../vendor/htmx/htmx.min.js";

// A version 4 UUID from getRandomValues, which phones offer on plain HTTP too (randomUUID is HTTPS only): the key
// a save or a row sent carries, which the server stores it under once, so a write sent again is stored once.
function newKey() {
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
  var reasons = [];
  doc.querySelectorAll('[role="alert"], .field-error, .error-message').forEach(function (el) {
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

// No answer: the network gone, a timeout (0), or a proxy's 502/503/504 (the app server it chose stopped or died).
export function unanswered(status) {
  return !status || (status >= 502 && status <= 504);
}

// A write htmx sent that got no answer is handed to `keep`, when `mine` says the request is the caller's, before any
// other listener warns of it: the caller keeps it on the phone and sends it again (its key makes that safe if the
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
    if (!unanswered(event.detail.xhr && event.detail.xhr.status)) return;
    kept(event);
  }, true);
}

// A write of the caller's (`mine`) carries a key of its own (`keyName`), and rather than go out while the phone is
// offline or writes of its kind wait before it (`behind()`), it waits too, so that they reach the server in order;
// so does one that gets no answer. `keep(config)` keeps it in the outbox.
export function queueWrites(mine, keyName, behind, keep) {
  document.addEventListener("htmx:configRequest", function (event) {
    var config = event.detail;
    if (!mine(config)) return;
    if (!config.parameters[keyName]) config.parameters[keyName] = newKey();
    if (!navigator.onLine || behind()) {
      event.preventDefault();
      keep(config);
    }
  });
  onUnanswered(mine, keep);
}

// What a form posted, as [name, value] pairs (files left out): how a kept write holds its fields.
export function pairsOf(formData) {
  var pairs = [];
  formData.forEach(function (value, name) { if (typeof value === "string") pairs.push([name, value]); });
  return pairs;
}

export function field(pairs, name) {
  var found = pairs.filter(function (pair) { return pair[0] === name; })[0];
  return found ? found[1] : null;
}

// The kept writes of one kind, one list per place, oldest first, in localStorage (it survives a reload and a
// restart): under "companion.<kind>.<place>" (a match's address; the club's writes), each {fields, ...} with what
// its sender notes beside (the round's number and key, the address it goes to, why it was refused).
export function kept(name) {
  try { return JSON.parse(localStorage.getItem(name) || "[]"); } catch { return []; }
}

// Whether the list could be kept: a full or closed storage (private browsing) says no.
export function keep(name, list) {
  try {
    if (list.length) localStorage.setItem(name, JSON.stringify(list));
    else localStorage.removeItem(name);
    return true;
  } catch {
    return false;
  }
}

// This page's CSRF token, not the one of the page a write was kept on: the browser may have been closed since,
// and its session with it.
function pageToken() {
  var found = document.querySelector('#entry input[name="csrf_token"]');
  if (found) return found.value;
  try { return JSON.parse(document.body.getAttribute("hx-headers"))["X-CSRFToken"]; } catch { return ""; }
}

// A kept write sent: given up after htmx's own timeout, so that one sent into a server dying under the proxy holds
// back nothing. Its answer, {status, html}; status 0 when none came.
export function send(url, pairs) {
  var token = pageToken();
  var body = new URLSearchParams();
  pairs.forEach(function (pair) { body.append(pair[0], pair[0] === "csrf_token" && token ? token : pair[1]); });
  return fetch(url, {
    method: "POST", body: body, credentials: "same-origin", signal: AbortSignal.timeout(htmx.config.timeout || 10000),
    headers: { "HX-Request": "true", "X-CSRFToken": token },
  }).then(function (response) {
    return response.text().then(function (html) { return { status: response.status, html: html }; });
  }).catch(function () {
    return { status: 0, html: "" };
  });
}

// Sending again later: after a second, then twice as long each time up to half a minute; at once (`now`) and from a
// second again when the phone is back online or a send went through (`reset`).
var FIRST_RETRY_MS = 1000;
var LAST_RETRY_MS = 30000;

export function retrier(run) {
  var wait = FIRST_RETRY_MS;
  var timer = null;
  function at(delay) {
    clearTimeout(timer);
    timer = setTimeout(function () { timer = null; run(); }, delay);
  }
  return {
    now: function () { at(0); },
    later: function () {
      at(wait);
      wait = Math.min(wait * 2, LAST_RETRY_MS);
    },
    reset: function () { wait = FIRST_RETRY_MS; },
    pending: function () { return timer !== null; },
  };
}
