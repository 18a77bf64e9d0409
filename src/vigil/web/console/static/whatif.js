/* Vigil console what-if page: edit a draft of one schedule, see it re-scored.
 *
 * The page embeds (vigil.web.console.whatif.whatif_page) the stored chart payload and the
 * draft's starting point: the schedule's duties (times in ms, UTC) and its given sleep
 * (null = predicted by the service). Every change POSTs the whole draft to
 * ./whatif/score, which scores it with the service's own path and answers the chart
 * payload, the data errors, the scorer's rest windows and the exact RosterData and
 * SleepData it scored (what the download buttons save). Drafts live in this tab only.
 *
 * Drawing is plain SVG, like chart.js, with the console.css chart classes: stored score
 * (grey), draft score (blue), planned-rest preview (green), duty bands with risk
 * "stored -> draft", stored sleep, draft sleep (draggable: body moves, ends resize;
 * focused bar: arrows move 15 min, shift 1 h, Delete removes), rest windows.
 * After each re-score the root carries data-seq (responses drawn) and data-server-ms.
 */
(function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";
  var MIN = 60 * 1000;
  var HOUR = 60 * MIN;
  var SNAP = 5 * MIN;
  var KEY_STEP = 15 * MIN;
  var MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

  function el(name, attrs, parent, text) {
    var node = document.createElementNS(NS, name);
    for (var key in attrs) {
      if (Object.prototype.hasOwnProperty.call(attrs, key)) node.setAttribute(key, attrs[key]);
    }
    if (text !== undefined) node.textContent = text;
    if (parent) parent.appendChild(node);
    return node;
  }
  function html(name, attrs, parent, text) {
    var node = document.createElement(name);
    for (var key in attrs) {
      if (Object.prototype.hasOwnProperty.call(attrs, key)) node.setAttribute(key, attrs[key]);
    }
    if (text !== undefined) node.textContent = text;
    if (parent) parent.appendChild(node);
    return node;
  }
  function pad(n) { return (n < 10 ? "0" : "") + n; }
  function hhmm(ms) { var d = new Date(ms); return pad(d.getUTCHours()) + ":" + pad(d.getUTCMinutes()); }
  function day(ms) { var d = new Date(ms); return pad(d.getUTCDate()) + " " + MONTHS[d.getUTCMonth()]; }
  function stamp(ms) {
    var d = new Date(ms);
    return d.getUTCFullYear() + "-" + pad(d.getUTCMonth() + 1) + "-" + pad(d.getUTCDate()) + " " + hhmm(ms);
  }
  /* "YYYY-MM-DD HH:MM" (or with T) in UTC -> ms; NaN when not such a text */
  function parseStamp(text) {
    var m = /^\s*(\d{4})-(\d{1,2})-(\d{1,2})[ T](\d{1,2}):(\d{2})\s*$/.exec(text || "");
    if (!m) return NaN;
    var ms = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5]);
    var d = new Date(ms);
    if (d.getUTCMonth() !== +m[2] - 1 || d.getUTCHours() !== +m[4] || +m[5] > 59) return NaN;
    return ms;
  }
  function num(v) { return v === null || v === undefined ? "—" : (Math.round(v * 100) / 100).toFixed(2); }
  function clone(x) { return JSON.parse(JSON.stringify(x)); }
  function maxOf(values) {
    var best = null;
    values.forEach(function (v) { if (v !== null && v !== undefined && (best === null || v > best)) best = v; });
    return best;
  }
  function safeName(text) { return String(text).replace(/[^A-Za-z0-9._-]+/g, "_"); }

  function download(text, name, type) {
    var url = URL.createObjectURL(new Blob([text], { type: type }));
    var a = html("a", { href: url, download: name }, document.body);
    a.click();
    a.remove();
    window.setTimeout(function () { URL.revokeObjectURL(url); }, 2000);
  }

  function init(root) {
    var data = JSON.parse(document.getElementById(root.getAttribute("data-source")).textContent);
    var csrf = document.querySelector('meta[name="csrf-token"]').getAttribute("content");
    var base = window.location.pathname.replace(/\/+$/, "");
    var stored = data.stored;
    var box = root.querySelector(".whatif-chart");
    var state = {
      draft: clone(data.draft), history: [], last: null, good: null, plan: null,
      selected: -1, windowH: 0, start: null, seq: 0, pending: 0, focusSleep: false
    };
    state.draft.scale = data.scale;

    function $(sel) { return root.querySelector(sel); }

    /* ---- talking to the server ---- */
    function post(path, body) {
      return fetch(base + path, {
        method: "POST", credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf, Accept: "application/json" },
        body: JSON.stringify(body)
      }).then(function (r) {
        if (r.redirected) return { ok: false, status: 401, body: null };  // to the sign-in page
        return r.json().catch(function () { return null; }).then(function (j) {
          return { ok: r.ok, status: r.status, body: j };
        });
      }).catch(function () { return { ok: false, status: 0, body: null }; });
    }
    function problemText(res) {
      if (res.body && res.body.detail) return res.body.detail;
      if (res.status === 401) return "You are signed out: download the draft files if you need them, then sign in again and reload.";
      if (res.status === 0) return "The server could not be reached; try again.";
      if (res.status === 403) return "The page's session changed: reload it (download the draft files first if you need them).";
      return "The server answered " + res.status + ".";
    }
    function showErrors(list) {
      var box2 = $("[data-testid=draft-errors]");
      box2.textContent = "";
      box2.hidden = !list.length;
      if (!list.length) return;
      html("strong", {}, box2, "The draft has errors (its last valid scores stay drawn):");
      var ul = html("ul", { "class": "errors" }, box2);
      list.slice(0, 20).forEach(function (e) { html("li", {}, ul, e); });
    }
    function rescore() {
      var mine = ++state.pending;
      $("[data-testid=timing]").textContent = "re-scoring…";
      return post("/score", state.draft).then(function (res) {
        if (mine !== state.pending) return;
        if (!res.ok || !res.body) { if (!refuse(res)) showErrors([problemText(res)]); return false; }
        state.last = res.body;
        if (res.body.payload) state.good = res.body;
        showErrors(res.body.errors || []);
        state.seq += 1;
        root.setAttribute("data-seq", String(state.seq));
        root.setAttribute("data-server-ms", String(res.body.serverMs));
        $("[data-testid=timing]").textContent = "re-scored in " + res.body.serverMs + " ms (server)";
        render();
      });
    }

    /* a draft the server refuses (400 naming a field) is undone, and the reason is shown
       next to that field: what-if never keeps an impossible draft */
    function refuse(res) {
      var errs = (res.body && res.body.errors) || [];
      if (res.status !== 400 || !errs.length || !errs[0].property) return false;
      if (state.history.length) {
        state.draft = state.history.pop();
        $("[data-action=undo]").disabled = !state.history.length;
      }
      buildTable();
      render();
      var m = /^duties\[(\d+)\](?:\.rests\[(\d+)\]|\.(on|off))?/.exec(errs[0].property);
      var target = null;
      if (m) {
        var tr = root.querySelector('tr[data-duty="' + m[1] + '"]');
        if (tr) target = tr.querySelector(m[2] !== undefined ? "[data-field=rest" + m[2] + "-start]" : "[data-field=" + (m[3] || "on") + "]");
      }
      if (target) {
        target.classList.add("invalid");
        html("div", { "class": "field-error", "data-testid": "field-error", role: "alert" }, target.parentNode, errs[0].message);
      }
      showErrors(["Not applied: " + errs[0].message]);
      return true;
    }

    /* ---- the draft ---- */
    function sleeps() {
      if (state.draft.sleep) return state.draft.sleep;
      var src = state.good && state.good.payload ? state.good.payload.sleep : stored.sleep;
      return src.map(function (s) { return [s.start, s.end]; });
    }
    function dropPlan() {  // a plan answers one draft: any change makes it stale
      state.plan = null;
      $("[data-plan-result]").hidden = true;
    }
    function change(edit) {
      dropPlan();
      state.history.push(clone(state.draft));
      $("[data-action=undo]").disabled = false;
      edit(state.draft);
      return rescore();
    }
    function ensureGiven(d) {
      if (!d.sleep) d.sleep = sleeps().map(function (s) { return s.slice(); });
      d.sleep.sort(function (a, b) { return a[0] - b[0]; });
    }
    function setSleep(i, span) {
      return change(function (d) {
        ensureGiven(d);
        d.sleep[i] = [span[0], span[1]];
        d.sleep.sort(function (a, b) { return a[0] - b[0]; });
        state.selected = d.sleep.findIndex(function (s) { return s[0] === span[0]; });
      });
    }
    function deleteSleep(i) {
      state.selected = -1;
      return change(function (d) { ensureGiven(d); d.sleep.splice(i, 1); });
    }
    function bounds(list, i) {
      return [i > 0 ? list[i - 1][1] : -Infinity, i + 1 < list.length ? list[i + 1][0] : Infinity];
    }
    function moved(list, i, mode, dt) {
      var s = list[i], lim = bounds(list, i), a = s[0], b = s[1];
      if (mode === "move") {
        dt = Math.max(lim[0] - a, Math.min(lim[1] - b, dt));
        return [a + dt, b + dt];
      }
      if (mode === "start") return [Math.max(lim[0], Math.min(b - 15 * MIN, a + dt)), b];
      return [a, Math.min(lim[1], Math.max(a + 15 * MIN, b + dt))];
    }

    /* ---- the view window ---- */
    function extent() {
      var lo = Infinity, hi = -Infinity;
      state.draft.duties.concat(stored.duties).forEach(function (d) { lo = Math.min(lo, d.on); hi = Math.max(hi, d.off); });
      return [lo - 18 * HOUR, hi + 6 * HOUR];
    }
    function view() {
      var full = extent();
      if (!state.windowH) return full;
      var span = state.windowH * HOUR;
      if (state.start === null) state.start = full[0];
      state.start = Math.min(Math.max(state.start, full[0]), Math.max(full[0], full[1] - span));
      return [state.start, state.start + span];
    }

    /* ---- drawing ---- */
    var geo = null;
    function linePath(payload, X, Y, only) {
      var paths = [];
      payload.duties.forEach(function (d, j) {
        if (only !== undefined && j !== only) return;
        var p = "", pen = false;
        for (var k = d.first; k < d.first + d.count; k++) {
          var v = payload.v[k];
          if (v === null || v === undefined) { pen = false; continue; }
          p += (pen ? "L" : "M") + X((payload.t0[k] + payload.t1[k]) / 2).toFixed(1) + "," + Y(v).toFixed(1);
          pen = true;
        }
        if (p) paths.push(p);
      });
      return paths;
    }

    function draw() {
      var width = Math.max(box.clientWidth || 0, 320), height = 420;
      var m = { l: 56, r: 64, t: 28, b: 108 };
      var pw = width - m.l - m.r, ph = height - m.t - m.b;
      var v = view(), x0 = v[0], x1 = v[1], lo = stored.low, hi = stored.high;
      function X(t) { return m.l + (t - x0) / (x1 - x0) * pw; }
      function Y(val) { return m.t + (1 - (val - lo) / (hi - lo)) * ph; }
      geo = { msPerPx: (x1 - x0) / pw, X: X };
      while (box.firstChild) box.removeChild(box.firstChild);
      var svg = el("svg", { width: width, height: height, viewBox: "0 0 " + width + " " + height, "class": "chart-svg whatif-svg",
        role: "img", "aria-label": "stored and draft " + stored.scaleName + " for " + stored.schedule }, box);
      var clip = el("clipPath", { id: "wclip" }, el("defs", {}, svg));
      el("rect", { x: m.l, y: 0, width: pw, height: height }, clip);
      var grid = el("g", { "class": "grid" }, svg);
      var vstep = hi - lo <= 10 ? 1 : (hi - lo <= 50 ? 5 : 10);
      for (var val = Math.ceil(lo / vstep) * vstep; val <= hi + 1e-9; val += vstep) {
        el("line", { x1: m.l, x2: m.l + pw, y1: Y(val), y2: Y(val) }, grid);
        el("text", { x: m.l - 6, y: Y(val) + 4, "text-anchor": "end", "class": "tick" }, grid, String(val));
      }
      var g = el("g", { "clip-path": "url(#wclip)" }, svg);
      var draftPayload = state.good ? state.good.payload : null;
      // duty bands: the draft's; stored ones outlined where they differ
      stored.duties.forEach(function (d, j) {
        var now = state.draft.duties[j];
        if (!now || now.on !== d.on || now.off !== d.off) {
          el("rect", { x: X(d.on), y: m.t, width: Math.max(X(d.off) - X(d.on), 1), height: ph, "class": "stored-duty" }, g);
        }
      });
      state.draft.duties.forEach(function (d, j) {
        var a = X(d.on), b = X(d.off);
        el("rect", { x: a, y: m.t, width: Math.max(b - a, 1), height: ph, "class": "duty-band" }, g);
        var was = stored.duties[j] ? stored.duties[j].risk : null;
        var pd = draftPayload && draftPayload.duties[j] ? draftPayload.duties[j] : null;
        var now = pd ? pd.risk : null;
        el("rect", { x: a, y: m.t - 6, width: Math.max(b - a, 1), height: 5, "class": "risk-strip " + ((pd && pd.band) || "none") }, g);
        if (b - a > 40 && b > m.l && a < m.l + pw && (was !== null || now !== null)) {
          var label = "R " + num(was) + (now !== null && Math.abs(now - was) >= 0.005 ? " → " + num(now) : "");
          el("text", { x: (Math.max(a, m.l) + Math.min(b, m.l + pw)) / 2, y: m.t - 10, "text-anchor": "middle", "class": "risk-label" }, g, label);
        }
      });
      stored.warnings.forEach(function (w, i) {
        el("line", { x1: m.l, x2: m.l + pw, y1: Y(w), y2: Y(w), "class": "warn-line level" + i }, svg);
        el("text", { x: m.l + pw + 4, y: Y(w) + 4, "class": "warn-label" }, svg, "warn " + w);
      });
      linePath(stored, X, Y).forEach(function (p) { el("path", { d: p, "class": "score-stored" }, g); });
      if (draftPayload) linePath(draftPayload, X, Y).forEach(function (p) { el("path", { d: p, "class": "score-draft" }, g); });
      if (state.plan && state.plan.preview.payload) {
        linePath(state.plan.preview.payload, X, Y, state.plan.duty).forEach(function (p) { el("path", { d: p, "class": "score-preview" }, g); });
      }
      // lanes under the plot: stored sleep, draft sleep, rest windows
      var yStored = m.t + ph + 6, yDraft = yStored + 12, yRest = yDraft + 22;
      [["stored", yStored + 5], ["draft", yDraft + 10], ["rest", yRest + 6]].forEach(function (lane) {
        el("text", { x: m.l - 6, y: lane[1], "text-anchor": "end", "class": "tick" }, svg, lane[0]);
      });
      stored.sleep.forEach(function (s) {
        el("rect", { x: X(s.start), y: yStored, width: Math.max(X(s.end) - X(s.start), 1), height: 6, "class": "sleep-stored" }, g);
      });
      var given = !!state.draft.sleep;
      sleeps().forEach(function (s, i) {
        var a = X(s[0]), b = X(s[1]);
        var bar = el("rect", { x: a, y: yDraft, width: Math.max(b - a, 2), height: 16, "data-index": i, "data-edge": "move",
          tabindex: 0, "class": "sleep-draft " + (given ? "given" : "predicted") + (i === state.selected ? " selected" : "") }, g);
        el("title", {}, bar, (given ? "given" : "predicted") + " sleep " + stamp(s[0]) + " – " + stamp(s[1]) + " UTC: drag to move, ends to resize");
        if (b - a >= 16) {
          el("rect", { x: a, y: yDraft, width: 5, height: 16, "data-index": i, "data-edge": "start", "class": "handle" }, g);
          el("rect", { x: b - 5, y: yDraft, width: 5, height: 16, "data-index": i, "data-edge": "end", "class": "handle" }, g);
        }
      });
      var rests = state.good ? state.good.rests : [];
      rests.forEach(function (list) {
        list.forEach(function (w) {
          el("rect", { x: X(w[0]), y: yRest, width: Math.max(X(w[1]) - X(w[0]), 1), height: 8, "class": "rest-now" }, g);
        });
      });
      if (state.plan) {
        state.plan.rests.forEach(function (w) {
          el("rect", { x: X(w[0]), y: yRest + 2, width: Math.max(X(w[1]) - X(w[0]), 1), height: 4, "class": "rest-plan" }, g);
        });
      }
      // time axis
      var axis = el("g", { "class": "grid time" }, svg);
      var steps = [1, 2, 3, 6, 12, 24, 48, 72, 168, 336], step = steps[steps.length - 1] * HOUR;
      for (var i = 0; i < steps.length; i++) { if (pw / ((x1 - x0) / (steps[i] * HOUR)) >= 64) { step = steps[i] * HOUR; break; } }
      for (var t = Math.ceil(x0 / step) * step; t <= x1; t += step) {
        var px = X(t);
        el("line", { x1: px, x2: px, y1: m.t, y2: m.t + ph }, axis);
        el("text", { x: px, y: yRest + 26, "text-anchor": "middle", "class": "tick" }, axis, step >= 24 * HOUR ? day(t) : hhmm(t));
        if (new Date(t).getUTCHours() === 0 && step < 24 * HOUR) {
          el("text", { x: px, y: yRest + 40, "text-anchor": "middle", "class": "tick date" }, axis, day(t));
        }
      }
      el("rect", { x: m.l, y: m.t, width: pw, height: ph, "class": "frame" }, svg);
      var tip = el("text", { x: m.l + pw, y: m.t - 12, "text-anchor": "end", "class": "drag-tip" }, svg, "");
      wire(svg, tip);
      if (state.focusSleep && state.selected >= 0) {
        var focus = svg.querySelector('rect.sleep-draft[data-index="' + state.selected + '"]');
        if (focus) focus.focus();
      }
      box.setAttribute("data-draft-sleeps", String(sleeps().length));
      box.setAttribute("data-draft-paths", String(svg.querySelectorAll("path.score-draft").length));
    }

    /* ---- dragging and keys on draft sleep bars ---- */
    function wire(svg, tip) {
      var drag = null;
      svg.addEventListener("pointerdown", function (ev) {
        var target = ev.target;
        if (!target.getAttribute || target.getAttribute("data-index") === null) return;
        ev.preventDefault();
        var i = Number(target.getAttribute("data-index"));
        drag = { i: i, mode: target.getAttribute("data-edge"), x: ev.clientX, list: sleeps().slice(), cur: null };
        svg.setPointerCapture(ev.pointerId);
      });
      svg.addEventListener("pointermove", function (ev) {
        if (!drag) return;
        var dt = Math.round((ev.clientX - drag.x) * geo.msPerPx / SNAP) * SNAP;
        drag.cur = dt ? moved(drag.list, drag.i, drag.mode, dt) : null;
        var span = drag.cur || drag.list[drag.i];
        var bar = svg.querySelector('rect.sleep-draft[data-index="' + drag.i + '"]');
        bar.setAttribute("x", String(geo.X(span[0])));
        bar.setAttribute("width", String(Math.max(2, geo.X(span[1]) - geo.X(span[0]))));
        tip.textContent = "sleep " + stamp(span[0]) + " – " + hhmm(span[1]) + " UTC";
      });
      function finish() {
        if (!drag) return;
        var d = drag;
        drag = null;
        state.focusSleep = false;
        if (d.cur && (d.cur[0] !== d.list[d.i][0] || d.cur[1] !== d.list[d.i][1])) setSleep(d.i, d.cur);
        else { select(d.i); render(); }
      }
      svg.addEventListener("pointerup", finish);
      svg.addEventListener("pointercancel", finish);
      svg.addEventListener("keydown", function (ev) {
        var target = ev.target;
        if (!target.getAttribute || target.getAttribute("data-index") === null) return;
        var i = Number(target.getAttribute("data-index"));
        var list = sleeps();
        state.focusSleep = true;
        if (ev.key === "ArrowLeft" || ev.key === "ArrowRight") {
          ev.preventDefault();
          var dt = (ev.key === "ArrowLeft" ? -1 : 1) * (ev.shiftKey ? HOUR : KEY_STEP);
          var span = moved(list, i, "move", dt);
          if (span[0] !== list[i][0]) setSleep(i, span);
        } else if (ev.key === "Delete" || ev.key === "Backspace") {
          ev.preventDefault();
          deleteSleep(i);
        } else if (ev.key === "Enter" || ev.key === " ") {
          ev.preventDefault();
          select(i);
          render();
        }
      });
    }

    function select(i) {
      state.selected = i;
      var editor = $("[data-testid=sleep-editor]");
      var list = sleeps();
      editor.hidden = i < 0 || i >= list.length;
      if (editor.hidden) return;
      editor.querySelector("[data-field=sleep-start]").value = stamp(list[i][0]);
      editor.querySelector("[data-field=sleep-end]").value = stamp(list[i][1]);
    }

    /* ---- the duties table ---- */
    function restText(list) {
      return list && list.length ? list.map(function (w) { return hhmm(w[0]) + "–" + hhmm(w[1]); }).join(", ") : "";
    }
    function buildTable() {
      var body = $("[data-testid=duties] tbody");
      body.textContent = "";
      state.draft.duties.forEach(function (d, i) {
        var tr = html("tr", { "data-duty": i }, body);
        html("td", {}, tr, String(i + 1));
        var c = d.cells || {};
        html("td", { "data-field": "route" }, tr, (c.StartAirport || "?") + "–" + (c.EndAirport || "?"));
        [["on", d.on], ["off", d.off]].forEach(function (f) {
          html("input", { "data-field": f[0], size: 15, value: stamp(f[1]), "aria-label": f[0] + " duty " + (i + 1) }, html("td", {}, tr));
        });
        [0, 1].forEach(function (k) {
          var td = html("td", { "class": "rest" }, tr);
          var r = d.rests[k];
          html("input", { "data-field": "rest" + k + "-start", size: 15, value: r ? stamp(r[0]) : "", "aria-label": "rest " + (k + 1) + " start" }, td);
          html("input", { "data-field": "rest" + k + "-end", size: 15, value: r ? stamp(r[1]) : "", "aria-label": "rest " + (k + 1) + " end" }, td);
        });
        html("td", { "data-stat": "mean" }, tr);
        html("td", { "data-stat": "peak" }, tr);
        html("td", { "data-stat": "risk" }, tr);
        var actions = html("td", {}, tr);
        if (data.crew[String(i)]) {
          html("button", { type: "button", "class": "small", "data-action": "open-plan", "data-duty": i }, actions, "Plan rest");
        }
      });
    }
    function readRow(tr) {
      function field(name) { return tr.querySelector("[data-field=" + name + "]"); }
      var bad = [];
      function get(name, optional) {
        var input = field(name);
        input.classList.remove("invalid");
        if (optional && !input.value.trim()) return null;
        var ms = parseStamp(input.value);
        if (isNaN(ms)) { input.classList.add("invalid"); bad.push(name); }
        return ms;
      }
      var on = get("on"), off = get("off"), rests = [];
      [0, 1].forEach(function (k) {
        var a = get("rest" + k + "-start", true), b = get("rest" + k + "-end", true);
        if ((a === null) !== (b === null)) { field("rest" + k + (a === null ? "-start" : "-end")).classList.add("invalid"); bad.push("rest"); }
        else if (a !== null && !isNaN(a) && !isNaN(b)) {
          if (b <= a) { field("rest" + k + "-end").classList.add("invalid"); bad.push("rest"); }
          rests.push([a, b]);
        }
      });
      if (!bad.length && off <= on) { field("off").classList.add("invalid"); bad.push("off"); }
      return bad.length ? null : { on: on, off: off, rests: rests };
    }
    function updateStats() {
      var payload = state.good ? state.good.payload : null;
      root.querySelectorAll("[data-testid=duties] tbody tr").forEach(function (tr) {
        var i = Number(tr.getAttribute("data-duty"));
        var s = stored.duties[i], d = payload ? payload.duties[i] : null;
        [["mean", "mean"], ["peak", "peak"], ["risk", "risk"]].forEach(function (f) {
          var cell = tr.querySelector("[data-stat=" + f[0] + "]");
          var was = s ? s[f[1]] : null, now = d ? d[f[1]] : null;
          cell.textContent = num(was) + (now !== null && was !== null && Math.abs(now - was) >= 0.005 ? " → " + num(now) : "");
          cell.classList.toggle("better", now !== null && was !== null && now < was - 0.004);
          cell.classList.toggle("worse", now !== null && was !== null && now > was + 0.004);
        });
        var rests = state.good && state.good.rests[i] ? state.good.rests[i] : [];
        tr.querySelectorAll("input[data-field=rest0-start]").forEach(function (input) {
          input.placeholder = !state.draft.duties[i].rests.length && rests.length ? "derived " + restText(rests) : "";
        });
      });
    }

    /* ---- summary ---- */
    function summary() {
      var payload = state.good ? state.good.payload : null;
      var p = $("[data-testid=summary]");
      if (!payload) { p.textContent = "The draft has no valid scores yet."; return; }
      var byStart = {};
      stored.t0.forEach(function (t, k) { byStart[t] = stored.v[k]; });
      var changed = 0;
      payload.t0.forEach(function (t, k) {
        var was = byStart[t];
        if (was === undefined || was === null || payload.v[k] === null || Math.abs(was - payload.v[k]) > 0.0005) changed += 1;
      });
      var sp = maxOf(stored.v), dp = maxOf(payload.v);
      var sr = maxOf(stored.duties.map(function (d) { return d.risk; }));
      var dr = maxOf(payload.duties.map(function (d) { return d.risk; }));
      p.textContent = "Draft: peak " + stored.scale + " " + num(dp) + " (stored " + num(sp) + ") · highest risk " + num(dr) +
        " (stored " + num(sr) + ") · " + changed + " of " + payload.v.length + " intervals changed · sleep " +
        (state.draft.sleep ? "given, " + state.draft.sleep.length + " records" : "predicted by the service");
      p.setAttribute("data-changed", String(changed));
      p.setAttribute("data-draft-peak", String(dp));
      p.setAttribute("data-stored-peak", String(sp));
    }

    function render() {
      draw();
      updateStats();
      summary();
      if (state.selected >= 0) select(state.selected);
    }

    /* ---- plan rest ---- */
    var planDuty = -1, planPlaceholders = [];
    function openPlan(i) {
      planDuty = i;
      var info = data.crew[String(i)];
      var panel = $("[data-testid=plan]");
      panel.hidden = false;
      panel.querySelector("[data-plan-duty]").textContent = String(i + 1) + " (" + stamp(state.draft.duties[i].on) + "Z, " + info.size + " pilots)";
      var crewBox = panel.querySelector("[data-plan-crew]"), landBox = panel.querySelector("[data-plan-landing]");
      [crewBox, landBox].forEach(function (f) { while (f.children.length > 1) f.removeChild(f.lastChild); });
      var chosen = [data.schedule];
      info.crew.forEach(function (r) { if (chosen.length < info.size && chosen.indexOf(r) < 0) chosen.push(r); });
      chosen = info.crew.filter(function (r) { return chosen.indexOf(r) >= 0; });
      /* crew members not in the roster are planned as placeholders (rested, no prior duties) */
      var names = info.crew.slice();
      planPlaceholders = [];
      for (var n = 1; names.length < info.size; n++) {
        var stand = "PLACEHOLDER-" + n;
        if (names.indexOf(stand) >= 0) continue;
        names.push(stand);
        chosen.push(stand);
        planPlaceholders.push(stand);
      }
      names.forEach(function (r) {
        var l1 = html("label", { "class": "check" }, crewBox);
        var c = html("input", { type: "checkbox", name: "crew", value: r }, l1);
        c.checked = chosen.indexOf(r) >= 0;
        c.disabled = r === data.schedule;
        l1.appendChild(document.createTextNode(" " + r));
        var l2 = html("label", { "class": "check" }, landBox);
        var k = html("input", { type: "checkbox", name: "landing", value: r }, l2);
        k.checked = chosen.indexOf(r) >= 0 && chosen.indexOf(r) < 2;
        l2.appendChild(document.createTextNode(" " + r));
      });
      planError("");
      var note = panel.querySelector("[data-plan-note]");
      note.textContent = planPlaceholders.length ? (info.size - planPlaceholders.length) + " of the " + info.size +
        " pilots of this flight are in the roster (same report, off-duty times and airports); " + planPlaceholders.join(", ") +
        " stand in for the others, planned from a rested start with no prior duties." : "";
      note.hidden = !planPlaceholders.length;
      panel.querySelector("[data-plan-result]").hidden = true;
    }
    function planError(text) {
      var e = $("[data-plan-error]");
      e.textContent = text;
      e.hidden = !text;
    }
    function checked(name) {
      return Array.prototype.filter.call(root.querySelectorAll("[data-testid=plan] input[name=" + name + "]"), function (c) { return c.checked; })
        .map(function (c) { return c.value; });
    }
    function runPlan() {
      var refs = checked("crew"), landing = checked("landing");
      planError("");
      $("[data-plan-result]").hidden = true;
      var button = $("[data-action=plan]");
      button.disabled = true;
      var stand = planPlaceholders.filter(function (r) { return refs.indexOf(r) >= 0; });
      post("/plan", { draft: state.draft, duty: planDuty, references: refs, landing: landing, placeholders: stand }).then(function (res) {
        button.disabled = false;
        if (!res.ok || !res.body) { planError(problemText(res)); return; }
        state.plan = res.body;
        showPlan();
        var d = state.draft.duties[planDuty];
        state.windowH = 72;
        state.start = d.on - 36 * HOUR + (d.off - d.on) / 2;
        root.querySelector("[data-window]").value = "72";
        render();
      });
    }
    function showPlan() {
      var res = state.plan, plan = res.plan;
      var panel = $("[data-plan-result]");
      panel.hidden = false;
      $("[data-testid=plan-summary]").textContent = res.summary;
      $("[data-testid=plan-mine]").textContent = res.mine + " · searched " + plan.candidates + " splits in " + res.serverMs + " ms (server)";
      var pairs = $("[data-testid=plan-pairs] tbody");
      pairs.textContent = "";
      plan.pairs.forEach(function (p) {
        var tr = html("tr", { "data-group": p.group }, pairs);
        html("td", {}, tr, (p.group === "landing" ? "Landing pilots " : "Relief pilots ") + p.references.join(", "));
        html("td", {}, tr, p.phase);
        html("td", { "class": "num" }, tr, p.equalSplitKss.toFixed(2));
        html("td", { "class": "num" }, tr, p.proposalKss.toFixed(2));
        html("td", { "class": "num " + (p.gain > 0 ? "better" : p.gain < 0 ? "worse" : "") }, tr, (p.gain > 0 ? "−" : p.gain < 0 ? "+" : "±") + Math.abs(p.gain).toFixed(2));
      });
      var alt = $("[data-plan-alternatives]");
      alt.textContent = "";
      plan.alternatives.forEach(function (a, k) {
        html("li", {}, alt, "alternative " + (k + 2) + ": worst KSS " + a.worstKss.toFixed(2) + " (landing " + a.landingKss.toFixed(2) + ", relief " + a.reliefKss.toFixed(2) + "), crew mean " + a.crewMeanKss.toFixed(2) + " — " +
          a.breaks.map(function (b) { return b.reference + " " + b.start.slice(11, 16) + "–" + b.end.slice(11, 16); }).join(", "));
      });
      drawOverlay();
    }
    /* the proposal (filled) over the current split (outlined), one row per pilot */
    function drawOverlay() {
      var res = state.plan, plan = res.plan;
      var holder = $("[data-testid=plan-overlay]");
      while (holder.firstChild) holder.removeChild(holder.firstChild);
      var d = state.draft.duties[res.duty];
      var rows = plan.proposal.breaks;
      var width = Math.max(holder.clientWidth || 0, 320), rowH = 22, m = { l: 110, r: 20, t: 20, b: 8 };
      var height = m.t + rows.length * rowH + m.b;
      var pw = width - m.l - m.r;
      function X(t) { return m.l + (t - d.on) / (d.off - d.on) * pw; }
      var svg = el("svg", { width: width, height: height, "class": "chart-svg plan-svg", role: "img", "aria-label": "planned rest over the current split" }, holder);
      el("rect", { x: X(d.on), y: m.t - 4, width: X(d.off) - X(d.on), height: rows.length * rowH + 4, "class": "duty-band" }, svg);
      var c0 = Date.parse(plan.cruise.start), c1 = Date.parse(plan.cruise.end);
      el("rect", { x: X(c0), y: m.t - 4, width: X(c1) - X(c0), height: 3, "class": "cruise" }, svg);
      for (var t = Math.ceil(d.on / HOUR) * HOUR; t <= d.off; t += 2 * HOUR) {
        el("text", { x: X(t), y: 12, "text-anchor": "middle", "class": "tick" }, svg, hhmm(t));
      }
      rows.forEach(function (b, k) {
        var y = m.t + k * rowH;
        el("text", { x: m.l - 8, y: y + 13, "text-anchor": "end", "class": "tick" + (b.reference === data.schedule ? " date" : "") }, svg,
          b.reference + (b.landing ? " (landing)" : ""));
        var now = res.now.filter(function (n) { return n.reference === b.reference; })[0];
        (now ? now.windows : []).forEach(function (w) {
          el("rect", { x: X(w[0]), y: y + 2, width: Math.max(X(w[1]) - X(w[0]), 1), height: 14, "class": "now-break" }, svg);
        });
        var s = Date.parse(b.start), e = Date.parse(b.end);
        var bar = el("rect", { x: X(s), y: y + 5, width: Math.max(X(e) - X(s), 1), height: 8, "class": "plan-break" + (b.landing ? " landing" : "") }, svg);
        el("title", {}, bar, b.reference + ": break " + b.break + ", " + hhmm(s) + "–" + hhmm(e) + "Z; last-hour KSS " + b.lastHourKss);
      });
      holder.setAttribute("data-breaks", String(rows.length));
    }

    /* ---- buttons ---- */
    root.addEventListener("click", function (ev) {
      var button = ev.target.closest ? ev.target.closest("[data-action]") : null;
      if (!button || !root.contains(button)) return;
      var action = button.getAttribute("data-action");
      if (action === "undo" && state.history.length) {
        dropPlan();
        state.draft = state.history.pop();
        button.disabled = !state.history.length;
        state.selected = -1; select(-1); buildTable(); rescore();
      } else if (action === "reset") {
        dropPlan();
        state.history.push(clone(state.draft));
        $("[data-action=undo]").disabled = false;
        state.draft = clone(data.draft); state.draft.scale = data.scale;
        state.selected = -1; select(-1); buildTable(); rescore();
      } else if (action === "predict-sleep") {
        state.selected = -1; select(-1);
        change(function (d) { d.sleep = null; });
      } else if (action === "add-sleep") {
        addSleep();
      } else if (action === "sleep-apply") {
        var a = parseStamp($("[data-field=sleep-start]").value), b = parseStamp($("[data-field=sleep-end]").value);
        if (isNaN(a) || isNaN(b) || b <= a) { showErrors(["Sleep times must read YYYY-MM-DD HH:MM (UTC), end after start."]); return; }
        setSleep(state.selected, [a, b]);
      } else if (action === "sleep-delete" && state.selected >= 0) {
        deleteSleep(state.selected);
        select(-1);
      } else if (action === "open-plan") {
        openPlan(Number(button.getAttribute("data-duty")));
      } else if (action === "plan") {
        runPlan();
      } else if (action === "plan-close") {
        $("[data-testid=plan]").hidden = true;
        state.plan = null; render();
      } else if (action === "plan-apply" && state.plan) {
        var res = state.plan;
        change(function (d) { d.duties[res.duty].rests = res.rests.map(function (w) { return w.slice(); }); }).then(function () {
          root.setAttribute("data-plan-applied", String(res.duty));
        });
        buildTable();
      } else if (action === "plan-download" && state.plan) {
        download(state.plan.plan.rosterData, safeName(data.rosterName + "-" + data.schedule + "-crew-plan") + ".csv", "text/csv");
      } else if (action === "download-roster" && state.last) {
        download(state.last.rosterData, safeName(data.rosterName + "-" + data.schedule + "-draft") + ".csv", "text/csv");
      } else if (action === "download-sleep" && state.last) {
        download(JSON.stringify(state.last.sleepData, null, 1), safeName(data.rosterName + "-" + data.schedule + "-sleep") + ".json", "application/json");
      }
    });
    function addSleep() {
      /* the first free time among sleeps and duties (sleep on duty is only in-flight rest) */
      var busy = state.draft.duties.map(function (d) { return [d.on, d.off]; });
      var v = view(), list = sleeps().concat(busy).sort(function (p, q) { return p[0] - q[0]; });
      var a = Math.floor((v[0] + v[1]) / 2 / HOUR) * HOUR, b = null;
      for (var k = 0; k < list.length; k++) {
        if (list[k][1] <= a) continue;
        if (list[k][0] >= a + 8 * HOUR) break;
        if (list[k][0] > a) { b = list[k][0]; break; }
        a = list[k][1];
      }
      b = b === null ? a + 8 * HOUR : Math.min(b, a + 8 * HOUR);
      if (b - a < 30 * MIN) { showErrors(["No room for a sleep here: move or delete one first."]); return; }
      change(function (d) {
        ensureGiven(d);
        d.sleep.push([a, b]);
        d.sleep.sort(function (p, q) { return p[0] - q[0]; });
        state.selected = d.sleep.findIndex(function (s) { return s[0] === a; });
      });
    }
    root.addEventListener("change", function (ev) {
      var target = ev.target;
      var tr = target.closest ? target.closest("tr[data-duty]") : null;
      if (tr) {
        var i = Number(tr.getAttribute("data-duty"));
        var row = readRow(tr);
        if (!row) { showErrors(["Duty " + (i + 1) + ": times must read YYYY-MM-DD HH:MM (UTC), ends after starts, rests in pairs."]); return; }
        change(function (d) {
          var was = d.duties[i], shift = row.on - was.on;
          /* a new report time moves the whole duty: its off-duty time, rest breaks and
             PartialAugment period go along (the off-duty field alone changes its length) */
          var moved = shift !== 0 && row.off === was.off &&
            JSON.stringify(row.rests) === JSON.stringify(was.rests);
          was.on = row.on;
          was.off = moved ? row.off + shift : row.off;
          was.rests = moved ? row.rests.map(function (r) { return [r[0] + shift, r[1] + shift]; }) : row.rests;
          if (moved && was.augment) was.augment = [was.augment[0] + shift, was.augment[1] + shift];
        }).then(function (applied) { if (applied !== false) buildTable(); });
      } else if (target.hasAttribute && target.hasAttribute("data-window")) {
        state.windowH = Number(target.value);
        state.start = null;
        render();
      }
    });
    root.querySelectorAll("[data-step]").forEach(function (button) {
      button.addEventListener("click", function () {
        if (!state.windowH) return;
        state.start = (state.start === null ? view()[0] : state.start) + Number(button.getAttribute("data-step")) * state.windowH * HOUR / 2;
        render();
      });
    });
    if (window.ResizeObserver) {
      var lastWidth = -1;
      new ResizeObserver(function () {
        if (box.clientWidth !== lastWidth && box.clientWidth > 0) { lastWidth = box.clientWidth; draw(); }
      }).observe(box);
    }
    buildTable();
    draw();
    rescore();
  }

  function start() { document.querySelectorAll("[data-whatif]").forEach(init); }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
