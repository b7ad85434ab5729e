// Burraco PAROLE: the on-screen keypad, the steppers, the pairs toggle and the live hand scores.
import { htmx } from "../../vendor/htmx/htmx.min.js";
import { describers, rowWidgets } from "../entries.js";

var MINUS = "\u2212";

// The total of a sum typed as counted ("25+10+5"); NaN when it is not digits and + only.
function sumOf(text) {
  var compact = (text || "").replace(/\s+/g, "");
  if (compact === "") return 0;
  if (!/^[0-9]+(\+[0-9]+)*\+?$/.test(compact)) return NaN;
  return compact.split("+").reduce(function (total, term) {
    return total + (term === "" ? 0 : parseInt(term, 10));
  }, 0);
}

function signed(n) {
  if (isNaN(n)) return "?";
  return n > 0 ? "+" + n : n < 0 ? MINUS + -n : "0";
}

function within(root, selector) {
  var found = root.querySelectorAll ? Array.prototype.slice.call(root.querySelectorAll(selector)) : [];
  if (root.matches && root.matches(selector)) found.unshift(root);
  return found;
}

// --- keypad ---------------------------------------------------------------------------

// One keypad per block; a tap on a keyed field moves it right under that field.
function initKeypad(block, onChange) {
  var pad = block.querySelector("[data-keypad]");
  if (!pad) return;
  var allowPlus = !!pad.querySelector('[data-key="+"]');
  var active = null;

  function fields() {
    return Array.prototype.slice.call(block.querySelectorAll("[data-keyed]")).filter(function (f) {
      return !f.disabled;
    });
  }
  function showTotal(field) {
    var box = field.closest(".burraco-keyed");
    var out = box && box.querySelector("[data-keyed-total]");
    if (!out) return;
    // The total only adds something when the text is a sum.
    out.textContent = field.value.indexOf("+") >= 0 ? "= " + (isNaN(sumOf(field.value)) ? "?" : sumOf(field.value)) : "";
  }
  // A digit typed first into a field that already holds a number replaces it, as on a
  // calculator; + and ⌫ keep it, so a sum can be continued.
  var fresh = false;
  function setFresh(value) {
    fresh = value;
    if (active) active.classList.toggle("burraco-fresh", value);
  }
  function activate(field) {
    if (active) active.classList.remove("burraco-active", "burraco-fresh");
    active = field;
    if (!field) {
      pad.hidden = true;
      return;
    }
    field.classList.add("burraco-active");
    setFresh(field.value !== "");
    var anchor = field.closest(".burraco-keyed, .burraco-setting") || field;
    anchor.insertAdjacentElement("afterend", pad);
    pad.hidden = false;
  }
  // The field Next moved to, with the keypad under it, comes into view: scrolled up just enough
  // for the keypad's foot, never so far that the field's top leaves the screen.
  function bringIntoView(field) {
    var top = field.getBoundingClientRect().top;
    var bottom = pad.getBoundingClientRect().bottom;
    var by = Math.min(Math.max(bottom - window.innerHeight + 8, 0), Math.max(top - 8, 0));
    if (top < 0) by = top - 8;
    if (by) window.scrollBy(0, by);
  }
  function set(field, text) {
    field.value = text;
    showTotal(field);
    field.dispatchEvent(new Event("input", { bubbles: true }));
  }
  function press(key) {
    if (!active) return;
    var text = active.value;
    if (key === "back") text = text.slice(0, -1);
    else if (key === "clear") text = "";
    else if (key === "+") {
      if (allowPlus && /[0-9]$/.test(text)) text += "+";
    } else if (key === "next") {
      var list = fields();
      activate(list[list.indexOf(active) + 1] || null);
      if (active) bringIntoView(active);
      return;
    } else if (/^[0-9]$/.test(key)) {
      // A lone 0 is replaced, so "05" never shows.
      text = (text === "0" || fresh ? "" : text) + key;
    }
    setFresh(false);
    set(active, text);
  }

  pad.addEventListener("click", function (event) {
    var key = event.target.closest("[data-key]");
    if (key) press(key.dataset.key);
  });
  // Keep the field focused while keys are tapped, so no phone keyboard pops up.
  pad.addEventListener("mousedown", function (event) { event.preventDefault(); });
  fields().forEach(function (field) {
    showTotal(field);
    field.addEventListener("focus", function () { if (field !== active) activate(field); });
    field.addEventListener("click", function () { if (field !== active) activate(field); });
    // A desktop keyboard may type too; keep only what the keypad could have typed.
    field.addEventListener("input", function () {
      var clean = field.value.replace(allowPlus ? /[^0-9+]/g : /[^0-9]/g, "");
      if (clean !== field.value) field.value = clean;
      if (field === active) setFresh(false);
      showTotal(field);
      onChange();
    });
  });
  return activate;
}

// --- steppers -------------------------------------------------------------------------

function initSteppers(block, onChange) {
  within(block, "[data-stepper]").forEach(function (stepper) {
    var value = stepper.querySelector("[data-stepper-value]");
    var out = stepper.querySelector("[data-stepper-out]");
    var step = parseInt(stepper.dataset.step || "1", 10);
    var min = parseInt(stepper.dataset.min || "0", 10);
    var max = parseInt(stepper.dataset.max || "999999", 10);
    stepper.addEventListener("click", function (event) {
      var button = event.target.closest("[data-delta]");
      if (!button || value.disabled) return;
      var current = parseInt(value.value, 10);
      if (isNaN(current)) current = min;
      var next = current + parseInt(button.dataset.delta, 10) * step;
      // From an odd value such as 1005, a step of 500 goes to 1505 or 505.
      value.value = String(Math.min(max, Math.max(min, next)));
      if (out) out.textContent = value.value;
      value.dispatchEvent(new Event("input", { bubbles: true }));
      onChange();
    });
  });
}

// --- the hand being entered -----------------------------------------------------------

function initEntry(entry) {
  var bonus = {
    clean: parseInt(entry.dataset.clean, 10),
    dirty: parseInt(entry.dataset.dirty, 10),
    closing: parseInt(entry.dataset.closing, 10)
  };
  var form = entry.closest("form") || entry;
  var hint = entry.querySelector("[data-closing-hint]");

  function number(side, name) {
    var field = form.querySelector('[name="' + name + "_" + side.dataset.side + '"]');
    return field ? (name === "table" || name === "hand" ? sumOf(field.value) : parseInt(field.value, 10) || 0) : 0;
  }
  function update() {
    var closed = form.querySelector('input[name="closed_by"]:checked');
    var closer = closed ? closed.value : "";
    var warning = "";
    entry.querySelectorAll("[data-side]").forEach(function (side) {
      var name = side.querySelector(".burraco-side-name").textContent;
      var score = number(side, "table") - number(side, "hand") +
        number(side, "clean") * bonus.clean + number(side, "dirty") * bonus.dirty +
        (closer !== "" && closer === name ? bonus.closing : 0);
      side.querySelector("[data-hand-score]").textContent = signed(score);
      var total = side.querySelector("[data-new-total]");
      if (total) total.textContent = isNaN(score) ? "?" : String(parseInt(side.dataset.total, 10) + score);
      if (closer !== "" && closer === name) warning = closingProblem(side, name);
    });
    if (hint) {
      hint.textContent = warning;
      hint.hidden = !warning;
    }
  }
  // The rules the server will apply to the closing side, said before Save is tapped.
  // In pairs the line counts both partners, and the closer's partner may still hold cards:
  // that is said too, as a reminder rather than a refusal.
  var pairs = entry.hasAttribute("data-pairs");
  function closingProblem(side, name) {
    if (number(side, "clean") + number(side, "dirty") < 1) return hint.dataset.noBurraco.replace("{side}", name);
    if (number(side, "hand") > 0) {
      return (pairs ? hint.dataset.partnerHand : hint.dataset.inHand).split("{side}").join(name);
    }
    return "";
  }

  var activate = initKeypad(entry, update);
  initSteppers(entry, update);
  entry.addEventListener("change", update);
  update();
  // After a refusal, show the reason (and the keypad on a refused number); otherwise
  // start where a hand starts, on the first side's table points.
  var error = entry.querySelector(".field-error");
  if (error) {
    var refused = entry.querySelector('[data-keyed][aria-invalid="true"]');
    if (activate && refused) activate(refused);
    error.scrollIntoView({ block: "center" });
  } else if (activate && entry.hasAttribute("data-running")) {
    var first = entry.querySelector("[data-keyed]");
    activate(first);
    // A new match and the entry after a save open where the last page was scrolled (the
    // foot of the setup, Save): bring the first field and its keypad into view instead,
    // below the read-back that stays at the top of the screen after a save.
    var slot = document.querySelector(".banner-slot");
    var cover = slot && getComputedStyle(slot).position === "sticky" ? slot.getBoundingClientRect().bottom : 0;
    var box = first && first.getBoundingClientRect();
    if (box && (box.top < cover || box.bottom > window.innerHeight)) {
      var side = (first.closest("[data-side]") || first).getBoundingClientRect();
      window.scrollBy(0, side.top - cover - 8);
    }
  }
}

// --- the new-match settings -------------------------------------------------------------

function initSettings(block) {
  var teams = block.querySelector("[data-burraco-teams]");
  var nolimit = block.querySelector("[data-nolimit]");
  var hands = block.querySelector('[name="burraco_hands"]');
  function update() {
    var pairs = block.querySelector('input[name="burraco_mode"][value="pairs"]');
    if (teams && pairs) teams.hidden = !pairs.checked;
    if (nolimit && hands) {
      hands.disabled = nolimit.checked;
      hands.closest(".burraco-setting").classList.toggle("burraco-muted", nolimit.checked);
    }
  }
  initKeypad(block, function () {});
  initSteppers(block, function () {});
  block.addEventListener("change", update);
  update();
}

// The hands the seated phones sent fill the scorekeeper's entry in (seats.js), a side changed here excepted.
rowWidgets.push({
  entry: "[data-burraco-entry]",
  after: ".burraco-live",
  row: function (entry, position) { return entry.querySelector('[data-side="' + (parseInt(position, 10) + 1) + '"]'); },
  fill: function (side, position, fields) {
    Object.keys(fields).forEach(function (name) {
      var input = side.querySelector('[name="' + name + '"]');
      if (!input) return;
      input.value = fields[name][0];
      var shown = input.closest("[data-stepper]");
      if (shown) shown.querySelector("[data-stepper-out]").textContent = input.value;
    });
  },
  filled: function (entry) { entry.dispatchEvent(new Event("change", { bubbles: true })); }
});

// A side the scorekeeper taps into is theirs: a hand its phone sends again no longer fills it in.
document.addEventListener("click", function (event) {
  var side = event.isTrusted && event.target instanceof Element && event.target.closest(".round-entry [data-side]");
  if (side) side.dataset.changedHere = "1";
}, true);

// Each entry and settings block set up once. Kept by element, not marked on it: a copy of the entry's HTML
// (the blank entry offline.js draws after a hand kept offline, or a kept hand put back by Undo) is new
// elements, which need their own listeners; a mark copied with the HTML would leave their keypad dead.
var ready = new WeakSet();
htmx.onLoad(function (root) {
  within(root, "[data-burraco-entry], [data-burraco-settings]").forEach(function (block) {
    if (ready.has(block)) return;
    ready.add(block);
    if (block.matches("[data-burraco-entry]")) initEntry(block);
    else initSettings(block);
  });
});

// What a Burraco hand kept on the phone says (offline.js), as the server's read-back says it
// (BurracoEntry.describe_round, held to it by tests/e2e/test_readback_parity.py): each side's score for
// the hand in seat order, the closer marked.
describers.burraco = function (pairs, match, say) {
  function posted(name) {
    for (var i = 0; i < pairs.length; i++) if (pairs[i][0] === name) return pairs[i][1];
    return "";
  }
  // A keypad sum as counted ("25+10+5"), blank for 0; a stepper's count, blank for 0.
  function sum(name) {
    return posted(name).replace(/\s+/g, "").split("+").reduce(function (total, term) {
      return total + (term === "" ? 0 : parseInt(term, 10));
    }, 0);
  }
  function count(name) {
    var text = posted(name).trim();
    return text === "" ? 0 : parseInt(text, 10);
  }
  var bonus = match.settings;
  var closer = posted("closed_by");
  return match.sides.map(function (side, index) {
    var n = index + 1;
    var closed = side === closer;
    var score = sum("table_" + n) - sum("hand_" + n) + count("clean_" + n) * bonus.clean +
      count("dirty_" + n) * bonus.dirty + (closed ? bonus.closing : 0);
    return side + " " + score + (closed ? " (" + say("burraco.closed", {}) + ")" : "");
  }).join(", ");
};
