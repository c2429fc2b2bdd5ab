// Background jobs: move the progress bar of a job under way, reload the page when it ends
// (the server then shows the result link or the reason it failed), and keep a form that
// starts a job from being sent twice. Served from static/ (the CSP allows no inline script).
(function () {
  "use strict";

  function poll(section) {
    var url = section.getAttribute("data-job-status");
    var bar = section.querySelector("progress");
    var text = section.querySelector(".job-text");
    function tick() {
      fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
        .then(function (response) { return response.ok ? response.json() : null; })
        .then(function (status) {
          if (!status) { window.setTimeout(tick, 5000); return; }
          if (status.total > 0) { bar.max = status.total; bar.value = status.done; }
          if (text) { text.textContent = status.text; }
          if (status.finished) { window.location.reload(); return; }
          window.setTimeout(tick, 1000);
        })
        .catch(function () { window.setTimeout(tick, 5000); });
    }
    window.setTimeout(tick, 500);
  }

  function once(form) {
    form.addEventListener("submit", function () {
      window.setTimeout(function () {
        form.querySelectorAll("button[type=submit], button:not([type])").forEach(function (b) {
          b.disabled = true;
        });
      }, 0);
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("[data-job-status]").forEach(poll);
    document.querySelectorAll("form[data-job-form]").forEach(once);
    if (document.querySelector("[data-job-list]")) {
      window.setTimeout(function () { window.location.reload(); }, 3000);
    }
  });
})();
