// Forms: the error summary takes the focus when a page comes back with errors (a screen
// reader reads it, the page opens on it); a form marked data-confirm asks before it is sent
// (to deactivate a user, withdraw a petition…); a form marked data-once disables its buttons
// once sent, so a double click sends one request. Served from static/ (the CSP allows no
// inline script); without script the summary is still first on the page, the forms still work.
(function () {
  "use strict";

  function focusSummary() {
    var summary = document.querySelector("[data-error-summary]");
    if (summary) {
      summary.focus();
      summary.scrollIntoView({ block: "start" });
    }
  }

  function linkToField(event) {
    // A summary link focuses its field (the browser only scrolls to it).
    var link = event.target.closest("[data-error-summary] a[href^='#']");
    if (!link) { return; }
    var target = document.getElementById(link.getAttribute("href").slice(1));
    if (target) {
      event.preventDefault();
      target.focus();
      var label = document.querySelector("label[for='" + target.id + "']");
      (label || target).scrollIntoView({ block: "start" });
    }
  }

  function guard(form) {
    form.addEventListener("submit", function (event) {
      var question = form.getAttribute("data-confirm");
      if (question && !window.confirm(question)) {
        event.preventDefault();
        return;
      }
      if (form.hasAttribute("data-once")) {
        if (form.getAttribute("data-sent") === "yes") {
          event.preventDefault();
          return;
        }
        form.setAttribute("data-sent", "yes");
        window.setTimeout(function () {
          form.querySelectorAll("button[type=submit], button:not([type]), input[type=submit]")
            .forEach(function (b) { b.disabled = true; });
        }, 0);
      }
    });
  }

  // Back to a page kept in the browser's cache: its forms can be sent again.
  window.addEventListener("pageshow", function (event) {
    if (!event.persisted) { return; }
    document.querySelectorAll("form[data-once]").forEach(function (form) {
      form.removeAttribute("data-sent");
      form.querySelectorAll("button, input[type=submit]").forEach(function (b) { b.disabled = false; });
    });
  });

  function fillFromFragment() {
    // A reset link carries its token after "#": browsers never send that part, so no
    // access log keeps it. Put it in the form, hide the field, and drop it from the URL.
    var input = document.querySelector("input[data-from-fragment]");
    var token = window.location.hash.slice(1);
    if (!input || !token) { return; }
    input.value = decodeURIComponent(token);
    var wrapper = input.closest("[data-fragment-field]");
    if (wrapper) { wrapper.hidden = true; }
    window.history.replaceState(null, "", window.location.pathname + window.location.search);
  }

  document.addEventListener("DOMContentLoaded", function () {
    fillFromFragment();
    focusSummary();
    document.addEventListener("click", linkToField);
    document.querySelectorAll("form[data-confirm], form[data-once]").forEach(guard);
  });
})();
