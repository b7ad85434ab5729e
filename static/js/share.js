// A finished match's "Share the result": the card goes to the phone's share sheet as a PNG file where the
// phone can share files (Web Share), else the link downloads it as it does without this script.
// A module of the match page (the link's data-page-scripts, loaded by app.js once the page has loaded).
import { onLoad } from "./app.js";

var LINK = "a[data-share-card]";

// The theme the page is drawn in: the one chosen in the preferences, else the system's.
function pageTheme() {
  var root = document.documentElement;
  if (root.classList.contains("theme-black")) return "black";
  if (root.dataset.theme === "light" || root.dataset.theme === "dark") return root.dataset.theme;
  return window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}

function withTheme(link) {
  var url = new URL(link.href, document.baseURI);
  url.searchParams.set("theme", pageTheme());
  link.href = url.pathname + url.search;
}

function fileSharing() {
  return typeof navigator.share === "function" && typeof navigator.canShare === "function";
}

// The link's own download, for a phone that turned the file down after all.
function download(link, blob) {
  var save = document.createElement("a");
  save.href = URL.createObjectURL(blob);
  save.download = link.getAttribute("download") || "result.png";
  document.body.appendChild(save);
  save.click();
  save.remove();
  setTimeout(function () { URL.revokeObjectURL(save.href); }, 10000);
}

document.addEventListener("click", function (event) {
  var link = event.target.closest && event.target.closest(LINK);
  if (!link) return;
  withTheme(link);
  if (!fileSharing()) return;  // the link downloads the card
  event.preventDefault();
  fetch(link.href, { credentials: "same-origin" })
    .then(function (answer) {
      if (!answer.ok) throw new Error("card " + answer.status);
      return answer.blob();
    })
    .then(function (blob) {
      var file = new File([blob], link.getAttribute("download") || "result.png", { type: "image/png" });
      if (!navigator.canShare({ files: [file] })) return download(link, blob);
      return navigator.share({ files: [file], title: link.dataset.shareTitle || document.title })
        .catch(function (error) {
          // Closing the share sheet is no failure; anything else, the file is saved instead.
          if (error && error.name !== "AbortError") download(link, blob);
        });
    })
    .catch(function () { window.location.href = link.href; });
});

// The link names the page's theme from the start too, for a long press's "Download link" or "Open in new tab".
function setThemes() { document.querySelectorAll(LINK).forEach(withTheme); }
onLoad(setThemes);
