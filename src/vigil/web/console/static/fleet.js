/* Vigil console: airline-size uploads and scoring progress, no library.
 *
 * - The upload form (form[data-upload]) is sent with XMLHttpRequest so a progress bar
 *   shows the bytes sent; the server's answer is followed like a normal submit: a
 *   redirect opens the page it names, an error page is shown as the page. Files larger
 *   than the form's data-max-bytes are refused before sending.
 * - While a roster is queued or processing, [data-progress-for] polls the status JSON and
 *   shows schedules scored of all (progress_done/total); the page reloads when done.
 * - The dashboard's exports and the duty explorer's "CSV of this view" (a[data-export]) are
 *   fetched as a stream into the file: the bar in [data-export-progress] runs while the
 *   server prepares (no value: indeterminate), then counts a CSV's rows (data-export
 *   "csv" or "…-csv") against the duties the server announces (X-Vigil-Duties)
 *   or the bytes against Content-Length; the file is then saved under the server's name.
 *   Without fetch streams the link downloads as a plain link.
 */
(function () {
  "use strict";

  function mib(bytes) { return (bytes / 1048576).toFixed(1) + " MiB"; }

  function uploads() {
    document.querySelectorAll("form[data-upload]").forEach(function (form) {
      var bar = form.querySelector("[data-upload-bar]");
      var text = form.querySelector("[data-upload-text]");
      form.addEventListener("submit", function (event) {
        var limit = Number(form.getAttribute("data-max-bytes") || 0);
        if (!window.XMLHttpRequest || !window.FormData) return; // plain submit
        var size = 0;
        form.querySelectorAll("input[type=file]").forEach(function (input) {
          Array.prototype.forEach.call(input.files || [], function (f) { size += f.size; });
        });
        event.preventDefault();
        if (limit && size > limit) {
          text.textContent = "The files are " + mib(size) + "; the most accepted is " + mib(limit) + ".";
          text.className = "error";
          return;
        }
        var xhr = new XMLHttpRequest();
        xhr.open("POST", form.action);
        bar.hidden = false;
        bar.value = 0;
        text.className = "muted small";
        xhr.upload.addEventListener("progress", function (e) {
          if (!e.lengthComputable) return;
          bar.max = e.total;
          bar.value = e.loaded;
          text.textContent = "Uploading " + mib(e.loaded) + " of " + mib(e.total);
        });
        xhr.upload.addEventListener("load", function () { text.textContent = "Uploaded; storing…"; });
        xhr.addEventListener("load", function () {
          if (xhr.status < 400 && xhr.responseURL) {
            window.location.assign(xhr.responseURL);
            return;
          }
          document.open();
          document.write(xhr.responseText);
          document.close();
        });
        xhr.addEventListener("error", function () {
          text.textContent = "The upload failed (connection lost). Try again.";
          text.className = "error";
        });
        form.querySelectorAll("button[type=submit]").forEach(function (b) { b.disabled = true; });
        xhr.send(new FormData(form));
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

  function progress() {
    var rows = document.querySelectorAll("[data-progress-for]");
    if (!rows.length) return;
    var url = rows[0].getAttribute("data-poll-url");
    function tick() {
      fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (body) {
          if (!body) return window.setTimeout(tick, 5000);
          var busy = false;
          rows.forEach(function (node) {
            var token = node.getAttribute("data-progress-for");
            var roster = body.rosters.filter(function (x) { return x.rosterToken === token; })[0];
            if (!roster) return;
            var bar = node.querySelector("[data-progress]");
            var text = node.querySelector("[data-progress-text]");
            if (ACTIVE[roster.status]) {
              busy = true;
              if (roster.progressTotal) {
                bar.hidden = false;
                bar.max = roster.progressTotal;
                bar.value = roster.progressDone;
                if (text) text.textContent = ": " + roster.progressDone + " of " + roster.progressTotal + " schedules scored";
              }
            } else if (node.hasAttribute("data-reload")) {
              window.location.reload();
            } else {
              bar.hidden = true;
              if (text) text.textContent = "";
            }
          });
          if (busy) window.setTimeout(tick, 1500);
        })
        .catch(function () { window.setTimeout(tick, 5000); });
    }
    window.setTimeout(tick, 500);
  }

  function fileName(response, fallback) {
    var found = /filename="([^"]+)"/.exec(response.headers.get("Content-Disposition") || "");
    return found ? found[1] : fallback;
  }

  function exports() {
    var box = document.querySelector("[data-export-progress]");
    if (!box || !window.fetch || !window.ReadableStream || !window.URL) return;
    var bar = box.querySelector("progress");
    var text = box.querySelector("[data-export-text]");
    var busy = false;
    document.querySelectorAll("a[data-export]").forEach(function (link) {
      link.addEventListener("click", function (event) {
        event.preventDefault();
        if (busy) return;
        busy = true;
        var kind = link.getAttribute("data-export");
        var what = link.textContent.trim();
        var started = Date.now();
        var streaming = false;
        function seconds() { return ((Date.now() - started) / 1000).toFixed(1) + " s"; }
        box.hidden = false;
        box.setAttribute("data-state", "preparing");
        bar.removeAttribute("value");
        text.className = "muted small";
        text.textContent = "Preparing " + what + "…";
        var clock = window.setInterval(function () {
          if (!streaming) text.textContent = "Preparing " + what + "… " + seconds();
        }, 250);
        fetch(link.href, { credentials: "same-origin" })
          .then(function (response) {
            if (!response.ok) throw new Error("the server answered " + response.status);
            streaming = true;
            box.setAttribute("data-state", "receiving");
            var total = Number(response.headers.get("Content-Length") || 0);
            var duties = Number(response.headers.get("X-Vigil-Duties") || 0);
            var rows = /(^|-)csv$/.test(kind) && duties > 0;
            var reader = response.body.getReader();
            var chunks = [];
            var got = 0;
            var lines = 0;
            bar.max = rows ? duties + 1 : (total || 1);
            bar.value = 0;
            function pump() {
              return reader.read().then(function (step) {
                if (step.done) return;
                var piece = step.value;
                chunks.push(piece);
                got += piece.length;
                if (rows) {
                  for (var i = 0; i < piece.length; i++) if (piece[i] === 10) lines++;
                  bar.value = lines;
                  text.textContent = Math.max(0, lines - 1).toLocaleString() + " of " +
                    duties.toLocaleString() + " duties · " + mib(got) + " · " + seconds();
                } else if (total) {
                  bar.value = got;
                  text.textContent = mib(got) + " of " + mib(total) + " · " + seconds();
                }
                return pump();
              });
            }
            return pump().then(function () {
              var name = fileName(response, "vigil-export." + kind);
              var blob = new Blob(chunks, { type: response.headers.get("Content-Type") || "" });
              var url = URL.createObjectURL(blob);
              var save = document.createElement("a");
              save.href = url;
              save.download = name;
              document.body.appendChild(save);
              save.click();
              save.remove();
              window.setTimeout(function () { URL.revokeObjectURL(url); }, 60000);
              bar.value = bar.max;
              box.setAttribute("data-state", "done");
              text.textContent = "Saved " + name + " (" + mib(got) + ") in " + seconds() + ".";
            });
          })
          .catch(function (error) {
            box.setAttribute("data-state", "failed");
            text.className = "error";
            text.textContent = "The export failed: " + error.message + ". Try again.";
          })
          .then(function () {
            window.clearInterval(clock);
            busy = false;
          });
      });
    });
  }

  function start() { uploads(); progress(); exports(); }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
