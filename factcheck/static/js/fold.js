/*
 * Panels that fold away on a narrow screen: <details open data-fold-below="701"> is closed
 * when the window is narrower than that many CSS pixels, unless something in it needs
 * attention (a field marked aria-invalid). Its <summary> opens it again. Wider screens, and
 * browsers without scripts, keep it open as served.
 */
(function () {
  "use strict";

  function fold() {
    var panels = document.querySelectorAll("details[data-fold-below]");
    for (var i = 0; i < panels.length; i++) {
      var panel = panels[i];
      var below = parseInt(panel.getAttribute("data-fold-below"), 10);
      if (window.innerWidth < below && !panel.querySelector("[aria-invalid=true]")) {
        panel.open = false;
      }
    }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", fold);
  } else {
    fold();
  }
})();
