// The offline page the service worker shows for a page it has no copy of: it names the rounds kept on this phone
// (offline.js keeps them) and leads back to their match, at once when the server answers (the match page then sends
// them), or by its button. Its words come with the offline sender's, which the page loads beside it.
import { KEPT_PREFIX, onLoad, text } from "./app.js";
import { kept, retrier } from "./outbox.js";

function offlinePage() {
  var box = document.querySelector("[data-offline-page]");
  if (!box || box.dataset.drawn) return;
  box.dataset.drawn = "1";
  var matches = [];
  var total = 0;
  Object.keys(localStorage).forEach(function (name) {
    var list = name.indexOf(KEPT_PREFIX) === 0 ? kept(name) : [];
    if (!list.length) return;
    var id = name.slice(KEPT_PREFIX.length);
    matches.push({ url: "/matches/" + encodeURIComponent(id), count: list.length,
                   label: list[0].where || box.dataset.match.replace("%(num)s", id) });
    total += list.length;
  });
  if (!matches.length) return;
  box.querySelector(".offline-waiting-count").textContent = text("offline_waiting", total);
  var links = box.querySelector(".offline-waiting-matches");
  matches.forEach(function (match) {
    var li = document.createElement("li");
    var a = document.createElement("a");
    a.href = match.url;
    a.textContent = match.label;
    li.appendChild(a);
    li.appendChild(document.createTextNode(" · " + text("waiting", match.count)));
    links.appendChild(li);
  });
  box.hidden = false;
  var back = document.querySelector("[data-try-again]");
  if (back) back.href = matches[0].url;
  var retry = retrier(function () {
    fetch("/ping", { cache: "no-store", credentials: "same-origin" }).then(function (response) {
      if (response.ok) window.location.assign(matches[0].url);
      else retry.later();
    }).catch(retry.later);
  });
  window.addEventListener("online", function () { retry.reset(); retry.now(); });
  retry.later();
}

onLoad(offlinePage);
