/*
 * The layout's #refusal region, for what htmx requests are told. A 403 or 404 arrives as the
 * server's own message, swapped in there (factcheck/refusals.py). This script empties the
 * region when the next request starts, and says something there when a request gets no
 * answer it can show: another error status, or no answer at all.
 */
(function () {
  "use strict";

  function region() {
    return document.getElementById("refusal");
  }

  function say(text) {
    var el = region();
    if (!el) return;
    var p = document.createElement("p");
    var strong = document.createElement("strong");
    strong.textContent = text;
    p.appendChild(strong);
    el.replaceChildren(p);
  }

  document.addEventListener("htmx:beforeRequest", function () {
    var el = region();
    if (el) el.replaceChildren();
  });
  document.addEventListener("htmx:responseError", function (event) {
    var status = event.detail.xhr ? event.detail.xhr.status : 0;
    say("The server could not do this (status " + status + "). Reload the page and try again.");
  });
  document.addEventListener("htmx:sendError", function () {
    say("The server could not be reached. Nothing was sent; try again when the connection is back.");
  });
})();
