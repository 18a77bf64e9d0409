/* Vigil console page behaviour (no library): confirmations, schedule switcher, the
 * roster list's live status (polls while any roster is queued or processing). */
(function () {
  "use strict";

  function confirmations() {
    document.querySelectorAll("form[data-confirm]").forEach(function (form) {
      form.addEventListener("submit", function (event) {
        if (!window.confirm(form.getAttribute("data-confirm"))) event.preventDefault();
      });
    });
  }

  function scheduleSwitch() {
    document.querySelectorAll("[data-switch-schedule]").forEach(function (select) {
      select.addEventListener("change", function () {
        document.querySelectorAll("[data-panel]").forEach(function (panel) {
          panel.hidden = panel.getAttribute("data-panel") !== select.value;
        });
      });
    });
  }

  /* the statuses of a roster still queued or being scored, from the server's contract
   * (vigil.contract.JobStatus, rendered into every page as #vigil-statuses) */
  var ACTIVE = (function () {
    var out = {};
    var node = document.getElementById("vigil-statuses");
    if (node) JSON.parse(node.textContent).active.forEach(function (s) { out[s] = true; });
    return out;
  })();

  function pollRosters() {
    var table = document.querySelector("[data-poll]");
    if (!table) return;
    var url = table.getAttribute("data-poll");
    function active() {
      return Array.prototype.some.call(table.querySelectorAll("[data-status]"), function (cell) {
        return ACTIVE[cell.getAttribute("data-status")];
      });
    }
    function tick() {
      if (!active()) return;
      fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
        .then(function (response) { return response.ok ? response.json() : null; })
        .then(function (body) {
          if (body) {
            body.rosters.forEach(function (roster) {
              var row = table.querySelector('tr[data-token="' + roster.rosterToken + '"]');
              if (!row) return;
              var cell = row.querySelector("[data-status]");
              if (cell.getAttribute("data-status") !== roster.status) {
                cell.setAttribute("data-status", roster.status);
                cell.textContent = roster.statusText;
                cell.className = "badge " + roster.statusClass;
                row.querySelectorAll("[data-when-done]").forEach(function (node) {
                  node.hidden = ACTIVE[roster.status] === true;
                });
              }
              var updated = row.querySelector("[data-updated]");
              if (updated) updated.textContent = roster.updatedAt;
            });
          }
          window.setTimeout(tick, 1500);
        })
        .catch(function () { window.setTimeout(tick, 5000); });
    }
    window.setTimeout(tick, 1000);
  }

  function start() { confirmations(); scheduleSwitch(); pollRosters(); }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
