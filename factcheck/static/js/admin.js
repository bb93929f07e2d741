/*
 * Django's admin builds its filter boxes (SelectFilter2.js) with an icon <span> that carries
 * an aria-label but no role, which ARIA does not allow on a plain span: each such icon is
 * given role="img", so the label it carries is announced. Icons added later are fixed as they
 * arrive.
 */
(function () {
  "use strict";

  function name(root) {
    var icons = root.querySelectorAll ? root.querySelectorAll("span.help-tooltip[aria-label]:not([role])") : [];
    for (var i = 0; i < icons.length; i++) icons[i].setAttribute("role", "img");
  }

  name(document);
  new MutationObserver(function (changes) {
    for (var i = 0; i < changes.length; i++) {
      for (var j = 0; j < changes[i].addedNodes.length; j++) name(changes[i].addedNodes[j].parentNode || document);
    }
  }).observe(document.documentElement, { childList: true, subtree: true });
})();
