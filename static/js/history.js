// The history's date fields: a day typed as the page's language writes it, or picked on a calendar.
// A module of the history page alone (its form's data-page-scripts, loaded by app.js with Cally).
import { htmx } from "../vendor/htmx/htmx.min.js";

// Back (or Forward) to the history draws it anew from the server, as no copy of a page is kept on the phone (htmx's
// history cache is off): it opens where it was left, at the match tapped in a long list, not where the page before
// it was scrolled to (its bottom). Here, not in app.js: the first load of every page has no bytes to spare for it
// (make bench), and the history is the long list Back returns to. (Where a browser keeps no storage, the listeners
// fail alone, the page at its top.)
var SCROLLED = "companion.scroll.";
document.addEventListener("htmx:beforeHistorySave", function (event) {
  sessionStorage[SCROLLED + event.detail.path] = scrollY;
});
document.addEventListener("htmx:historyRestore", function (event) {
  scrollTo(0, sessionStorage[SCROLLED + event.detail.path] || 0);
});

var FIELD = "input[data-day-order]";
// What a field holds once a whole day is typed: ISO (the links' form), three numbers with
// separators between, or the eight digits of a keypad that has no separator (six are sent by Enter).
var WHOLE = /^\s*(?:\d{4}-\d{1,2}-\d{1,2}|\d{1,2}[ ./,-]+\d{1,2}[ ./,-]+\d{4}|\d{4}[ ./,-]+\d{1,2}[ ./,-]+\d{1,2}|\d{8})\s*$/;

// A half-typed date ("25/1") is not sent as the history's filter: the results would be drawn
// for nothing and the field told it is not a date while the rest is being typed. The whole
// day, or an emptied field, goes on to the form's live filter; Enter sends whatever it holds.
document.addEventListener("input", function (event) {
  var field = event.target;
  if (!field.matches || !field.matches(FIELD)) return;
  if (field.value.trim() && !WHOLE.test(field.value)) event.stopPropagation();
}, true);

// The results redrawn by the live filter: their count is said, in the status line that stays on the page.
document.addEventListener("htmx:afterSettle", function (event) {
  var said = document.getElementById("history-said");
  var count = event.target.id === "history-results" && event.target.querySelector(".history-count");
  if (said && count) said.textContent = count.textContent.replace(/\s+/g, " ").trim();
});

function pad(number) { return (number < 10 ? "0" : "") + number; }

// The day a field holds as ISO, for the calendar to open on; "" when it holds none.
function isoDay(field) {
  var text = field.value.trim();
  if (/^\d{4}-\d{1,2}-\d{1,2}$/.test(text)) return text;
  var numbers = text.split(/[ ./,-]+/);
  if (numbers.length !== 3) return "";
  var parts = {};
  field.dataset.dayOrder.split("").forEach(function (letter, index) { parts[letter] = numbers[index]; });
  if (!/^\d{4}$/.test(parts.y) || !/^\d{1,2}$/.test(parts.m) || !/^\d{1,2}$/.test(parts.d)) return "";
  return parts.y + "-" + pad(+parts.m) + "-" + pad(+parts.d);
}

// An ISO day as the field writes it, in the page language's order.
function written(field, iso) {
  var numbers = iso.split("-");
  var parts = { y: numbers[0], m: numbers[1], d: numbers[2] };
  return field.dataset.dayOrder.split("").map(function (letter) { return parts[letter]; })
    .join(field.dataset.daySeparator);
}

function setDay(popover, text) {
  var field = document.getElementById(popover.dataset.for);
  field.value = text;
  field.removeAttribute("aria-invalid");
  popover.hidePopover();
  field.dispatchEvent(new Event("input", { bubbles: true }));
}

document.addEventListener("toggle", function (event) {
  var popover = event.target;
  if (!popover.classList || !popover.classList.contains("calendar-popover") || event.newState !== "open") return;
  var calendar = popover.querySelector("calendar-date");
  var day = isoDay(document.getElementById(popover.dataset.for));
  calendar.value = day;
  if (day) calendar.focusedDate = day;
  calendar.focus();
}, true);

document.addEventListener("change", function (event) {
  var calendar = event.target;
  if (calendar.localName !== "calendar-date") return;
  var popover = calendar.closest(".calendar-popover");
  if (popover && calendar.value) setDay(popover, written(document.getElementById(popover.dataset.for), calendar.value));
}, true);

document.addEventListener("click", function (event) {
  var clear = event.target.closest && event.target.closest("[data-day-clear]");
  if (clear) setDay(clear.closest(".calendar-popover"), "");
});

// A date field told it holds no day by an htmx filter change (its message comes out of band).
document.addEventListener("htmx:afterSettle", function () {
  document.querySelectorAll(FIELD).forEach(function (field) {
    var message = document.getElementById(field.id + "-error");
    if (message && message.textContent.trim()) field.setAttribute("aria-invalid", "true");
    else field.removeAttribute("aria-invalid");
  });
});

// The calendar's buttons appear once Cally has come, on this page and on every history page a
// boosted link brings later: without it (or without popovers) the fields are typed in.
function showCalendars() {
  if (!Object.prototype.hasOwnProperty.call(HTMLElement.prototype, "popover") || !customElements.get("calendar-date")) return;
  document.querySelectorAll(".calendar-button").forEach(function (button) { button.hidden = false; });
}
customElements.whenDefined("calendar-date").then(showCalendars);
htmx.onLoad(showCalendars);
