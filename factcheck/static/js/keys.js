/*
 * Keyboard shortcuts, generic: no build step, no dependencies.
 *
 * Any element with data-key="X" is activated when X is pressed while no text field has the
 * focus: a text field, select or textarea gets the focus, anything else is clicked (a
 * button, a link, a checkbox, a <summary> which opens its <details> and focuses the first
 * field inside). X is the KeyboardEvent.key value: "a", "/", "?", "Enter", "1".
 *
 * Rows: elements marked data-row inside a [data-rows] container form a list. j / k move the
 * current row (it gets the focus and the class is-current); a data-key element inside the
 * current row wins over one elsewhere on the page, so every row can carry its own
 * data-key="a" button and "a" acts on the current row only. Elements inside other rows
 * are never triggered.
 *
 * Escape leaves a text field, or closes an open <details data-key-close>. Ctrl+Enter (or
 * Cmd+Enter) in a text field sends its form: a note or a verdict without the mouse.
 *
 * Help: "?" opens the page's <dialog id="key-help">, listing every key the page binds: each
 * data-key element's key with its data-key-help, and each data-key-doc element (a key this
 * script handles itself, such as j/k) likewise. The markup comes from factcheck/keys.py, the
 * one definition of every key; the list is read from the page, so it cannot drift from it.
 *
 * To reuse it on another page, mark the controls, e.g. verdict ratings 1-7:
 *     <button data-key="1" ...>True</button> ... <button data-key="7" ...>Unverifiable</button>
 * Every keyed control must also be a visible control: the keys are shortcuts, never the
 * only way to act.
 */
(function () {
  "use strict";

  var currentRowId = null;

  function isTextField(el) {
    if (!el || !el.tagName) return false;
    if (el.isContentEditable) return true;
    var tag = el.tagName.toLowerCase();
    if (tag === "textarea" || tag === "select") return true;
    if (tag !== "input") return false;
    var type = (el.getAttribute("type") || "text").toLowerCase();
    return ["checkbox", "radio", "button", "submit", "reset", "hidden", "image", "file", "range", "color"].indexOf(type) === -1;
  }

  function rows() {
    return Array.prototype.slice.call(document.querySelectorAll("[data-rows] [data-row]"));
  }

  function currentRow() {
    return currentRowId ? document.getElementById(currentRowId) : null;
  }

  function setCurrent(row, keepFocus) {
    var old = currentRow();
    if (old) old.classList.remove("is-current");
    if (!row) { currentRowId = null; return; }
    currentRowId = row.id;
    row.classList.add("is-current");
    // A click on a row's button keeps the focus there: moving it to the row would blur the
    // button before its form is sent, and htmx would send the form without the button's action.
    if (!keepFocus) row.focus({ preventScroll: true });
    row.scrollIntoView({ block: "nearest" });
  }

  function move(step) {
    var list = rows();
    if (!list.length) return;
    var index = list.indexOf(currentRow());
    var next = index === -1 ? (step > 0 ? 0 : list.length - 1) : Math.min(list.length - 1, Math.max(0, index + step));
    setCurrent(list[next]);
  }

  function visible(el) {
    return !!(el.offsetWidth || el.offsetHeight || el.getClientRects().length);
  }

  function findKeyed(key) {
    var selector = '[data-key="' + (window.CSS && CSS.escape ? CSS.escape(key) : key) + '"]';
    var row = currentRow();
    if (row) {
      var inRow = row.querySelector(selector);
      if (inRow) return inRow;
    }
    var all = document.querySelectorAll(selector);
    for (var i = 0; i < all.length; i++) {
      if (!all[i].closest("[data-row]") && !all[i].disabled && (visible(all[i]) || all[i].tagName === "SUMMARY")) return all[i];
    }
    return null;
  }

  var KEY_LABELS = { "Escape": "Esc", "Control+Enter": "Ctrl+Enter", " ": "Space" };

  function helpDialog() {
    return document.getElementById("key-help");
  }

  function buildHelp(dialog) {
    var list = dialog.querySelector("[data-key-help-list]");
    if (!list) return;
    // One line per description, its keys in page order (the ratings 1-7 share one line).
    var lines = [];
    var byHelp = {};
    var seen = {};
    document.querySelectorAll("[data-key], [data-key-doc]").forEach(function (el) {
      if (dialog.contains(el)) return;
      var key = el.getAttribute("data-key") || el.getAttribute("data-key-doc");
      var help = el.getAttribute("data-key-help") || "";
      if (seen[key]) return;
      seen[key] = true;
      if (!byHelp[help]) { byHelp[help] = { keys: [], help: help }; lines.push(byHelp[help]); }
      byHelp[help].keys.push(key);
    });
    list.textContent = "";
    lines.forEach(function (line) {
      var dt = document.createElement("dt");
      line.keys.forEach(function (key, i) {
        if (i) dt.appendChild(document.createTextNode(" "));
        var kbd = document.createElement("kbd");
        kbd.setAttribute("data-help-key", key);
        kbd.textContent = KEY_LABELS[key] || key;
        dt.appendChild(kbd);
      });
      var dd = document.createElement("dd");
      dd.textContent = line.help;
      list.appendChild(dt);
      list.appendChild(dd);
    });
  }

  function toggleHelp() {
    var dialog = helpDialog();
    if (!dialog) return;
    if (dialog.open) { dialog.close(); return; }
    buildHelp(dialog);
    dialog.showModal();
    // showModal focuses the first control, the Close button under the whole list, and the
    // dialog opened scrolled to its end: start at the title instead.
    var title = dialog.querySelector("#key-help-title");
    if (title) title.focus({ preventScroll: true });
    dialog.scrollTop = 0;
  }

  document.addEventListener("click", function (event) {
    var target = event.target;
    if (!target.closest) return;
    if (target.closest(".key-help-button")) toggleHelp();
    else if (target.closest("[data-key-help-close]")) { var dialog = helpDialog(); if (dialog) dialog.close(); }
  });

  function activate(el) {
    if (isTextField(el)) { el.focus(); if (el.select) el.select(); return; }
    el.click();
    if (el.tagName === "SUMMARY") {
      var details = el.parentElement;
      // The click toggles the <details> after this handler; look once it has opened.
      setTimeout(function () {
        if (!details.open) return;
        var field = details.querySelector("input:not([type=hidden]), textarea, select");
        if (field) field.focus();
      }, 0);
    }
  }

  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented) return;
    var target = event.target;
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && isTextField(target) && target.form) {
      event.preventDefault();
      target.form.requestSubmit();
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    var dialog = helpDialog();
    if (dialog && dialog.open) {
      // While the help is open only ? (and Escape, which the dialog handles) act.
      if (event.key === "?") { event.preventDefault(); dialog.close(); }
      return;
    }
    if (event.key === "Escape") {
      if (isTextField(target)) { target.blur(); var row = currentRow(); if (row) row.focus({ preventScroll: true }); return; }
      document.querySelectorAll("details[data-key-close][open], [data-row] details[open]").forEach(function (d) { d.open = false; });
      return;
    }
    if (isTextField(target)) return;
    // Enter on a focused button or link outside the current row keeps its own meaning.
    if (event.key === "Enter" && target !== currentRow() && target !== document.body && target.matches("a, button, summary, input")) return;
    if ((event.key === "j" || event.key === "k") && rows().length) {
      event.preventDefault();
      move(event.key === "j" ? 1 : -1);
      return;
    }
    var el = findKeyed(event.key);
    if (!el) return;
    event.preventDefault();
    activate(el);
  });

  // A row swapped by htmx is a new element with the same id: keep it current, and keep its
  // selection box as it was.
  var checkedBeforeSwap = {};
  document.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail.target;
    if (!target || !target.matches || !target.matches("[data-row]")) return;
    target.querySelectorAll("input[type=checkbox][id]").forEach(function (box) { checkedBeforeSwap[box.id] = box.checked; });
  });
  document.addEventListener("htmx:afterSettle", function () {
    Object.keys(checkedBeforeSwap).forEach(function (id) {
      var box = document.getElementById(id);
      if (box) box.checked = checkedBeforeSwap[id];
    });
    checkedBeforeSwap = {};
    var row = currentRow();
    if (row && !row.classList.contains("is-current")) {
      row.classList.add("is-current");
      if (!row.contains(document.activeElement) || document.activeElement === document.body) row.focus({ preventScroll: true });
    } else if (currentRowId && !row) {
      currentRowId = null;
    }
    updateSelectedCount();
  });

  // Clicking a row makes it the current one.
  document.addEventListener("click", function (event) {
    var row = event.target.closest && event.target.closest("[data-rows] [data-row]");
    if (row && row.id !== currentRowId) setCurrent(row, row.contains(document.activeElement) && document.activeElement !== row);
  });

  function updateSelectedCount() {
    var count = document.querySelectorAll("[data-rows] input[type=checkbox][name=ids]:checked").length;
    document.querySelectorAll("[data-selected-count]").forEach(function (el) { el.textContent = count.toLocaleString("en"); });
  }
  document.addEventListener("change", function (event) {
    if (event.target.matches && event.target.matches("input[type=checkbox][name=ids]")) updateSelectedCount();
  });
  document.addEventListener("DOMContentLoaded", updateSelectedCount);
})();
