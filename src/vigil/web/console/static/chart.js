/* Vigil console fatigue chart: plain SVG, no library, works offline.
 *
 * Each <div class="chart" data-source="ID"> reads the JSON payload in
 * <script type="application/json" id="ID"> (vigil.web.console.charts.chart_payload) and
 * draws: the score per 15-minute interval (a line per duty, at interval midpoints),
 * duties as shaded bands with their relative risk on top, given and predicted sleep as
 * bars under the plot, and the scale's warning levels as dashed lines. Hovering shows
 * the exact value and interval time. After drawing, the container carries
 * data-points = number of score points drawn (tests compare it with the envelope's
 * interval count).
 *
 * Times are shown in UTC, or in home-base time when the payload says timeAxis "home":
 * each instant with the home base's own UTC offset then (homeOffsets: [from ms, minutes]
 * from each change on, so a daylight-saving change mid-schedule moves the clock by an
 * hour there and only there; homeOffsetMin, the offset at the first duty, when absent).
 */
(function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";
  var HOUR = 3600 * 1000;
  var MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
  var counter = 0;
  var offsets = [[-Infinity, 0]]; // [from ms, minutes added to UTC for display]

  // minutes east of UTC shown at instant ms (the last change at or before it)
  function offsetAt(ms) {
    var minutes = offsets[0][1];
    for (var i = 1; i < offsets.length && offsets[i][0] <= ms; i++) minutes = offsets[i][1];
    return minutes;
  }
  function shift(ms) { return offsetAt(ms) * 60000; }
  function zone(ms) { return home ? "home base, " + offsetText(offsetAt(ms)) : "UTC"; }
  var home = false;

  function el(name, attrs, parent, text) {
    var node = document.createElementNS(NS, name);
    for (var key in attrs) {
      if (Object.prototype.hasOwnProperty.call(attrs, key)) node.setAttribute(key, attrs[key]);
    }
    if (text !== undefined) node.textContent = text;
    if (parent) parent.appendChild(node);
    return node;
  }

  function pad(n) { return (n < 10 ? "0" : "") + n; }
  function hhmm(ms) { var d = new Date(ms + shift(ms)); return pad(d.getUTCHours()) + ":" + pad(d.getUTCMinutes()); }
  function day(ms) { var d = new Date(ms + shift(ms)); return pad(d.getUTCDate()) + " " + MONTHS[d.getUTCMonth()]; }
  function stamp(ms) {
    var d = new Date(ms + shift(ms));
    return d.getUTCFullYear() + "-" + pad(d.getUTCMonth() + 1) + "-" + pad(d.getUTCDate()) + " " + hhmm(ms);
  }
  function fmt(v, unit) { return (Math.round(v * 1000) / 1000).toString() + (unit ? " " + unit : ""); }

  function extent(data) {
    var lo = Infinity, hi = -Infinity;
    data.duties.forEach(function (d) { lo = Math.min(lo, d.on); hi = Math.max(hi, d.off); });
    if (!isFinite(lo)) {
      data.sleep.forEach(function (s) { lo = Math.min(lo, s.start); hi = Math.max(hi, s.end); });
    }
    if (!isFinite(lo)) { lo = 0; hi = 24 * HOUR; }
    return [lo - 18 * HOUR, hi + 6 * HOUR];
  }

  function timeStep(spanMs, widthPx) {
    var steps = [1, 2, 3, 6, 12, 24, 48, 72, 168, 336];
    for (var i = 0; i < steps.length; i++) {
      if (widthPx / (spanMs / (steps[i] * HOUR)) >= 64) return steps[i] * HOUR;
    }
    return steps[steps.length - 1] * HOUR;
  }

  function valueStep(range) {
    if (range <= 10) return 1;
    if (range <= 50) return 5;
    return 10;
  }

  function offsetText(minutes) {
    var sign = minutes < 0 ? "−" : "+", a = Math.abs(minutes);
    return "UTC" + sign + pad(Math.floor(a / 60)) + ":" + pad(a % 60);
  }

  function draw(box, data, view) {
    home = data.timeAxis === "home";
    offsets = [[-Infinity, home ? (data.homeOffsetMin || 0) : 0]];
    if (home && data.homeOffsets && data.homeOffsets.length) {
      offsets = data.homeOffsets.map(function (o) { return [o[0], o[1]]; });
      offsets[0][0] = -Infinity;
    }
    var width = Math.max(box.clientWidth || 0, 320);
    var height = 340;
    var m = { l: 48, r: 64, t: 26, b: 58 };
    var pw = width - m.l - m.r, ph = height - m.t - m.b;
    var x0 = view[0], x1 = view[1];
    var lo = data.low, hi = data.high;
    function X(t) { return m.l + (t - x0) / (x1 - x0) * pw; }
    function Y(v) { return m.t + (1 - (v - lo) / (hi - lo)) * ph; }
    function T(px) { return x0 + (px - m.l) / pw * (x1 - x0); }

    while (box.firstChild) box.removeChild(box.firstChild);
    var svg = el("svg", {
      width: width, height: height, viewBox: "0 0 " + width + " " + height,
      role: "img", "aria-label": data.scaleName + " for " + data.schedule, "class": "chart-svg"
    }, box);
    var clipId = "vclip" + (++counter);
    var clip = el("clipPath", { id: clipId }, el("defs", {}, svg));
    el("rect", { x: m.l, y: 0, width: pw, height: height }, clip);

    // value grid and axis
    var grid = el("g", { "class": "grid" }, svg);
    var vstep = valueStep(hi - lo);
    for (var v = Math.ceil(lo / vstep) * vstep; v <= hi + 1e-9; v += vstep) {
      el("line", { x1: m.l, x2: m.l + pw, y1: Y(v), y2: Y(v) }, grid);
      el("text", { x: m.l - 6, y: Y(v) + 4, "text-anchor": "end", "class": "tick" }, grid, String(v));
    }
    el("text", { x: 12, y: m.t + ph / 2, "class": "axis-title", transform: "rotate(-90 12 " + (m.t + ph / 2) + ")", "text-anchor": "middle" },
      svg, data.scale + (data.unit ? " [" + data.unit + "]" : ""));

    var clipped = el("g", { "clip-path": "url(#" + clipId + ")" }, svg);
    // duty bands and risk labels
    data.duties.forEach(function (d) {
      var a = X(d.on), b = X(d.off);
      el("rect", { x: a, y: m.t, width: Math.max(b - a, 1), height: ph, "class": "duty-band" }, clipped);
      el("rect", { x: a, y: m.t - 6, width: Math.max(b - a, 1), height: 5, "class": "risk-strip " + (d.band || "none") }, clipped);
      // the crew member's own rest (and wake-up allowance): left out of the duty's figures
      (d.rest || []).forEach(function (run) {
        var ra = X(d.on + run[0] * 900000), rb = X(Math.min(d.on + (run[0] + run[1]) * 900000, d.off));
        var r = el("rect", { x: ra, y: m.t, width: Math.max(rb - ra, 1), height: ph, "class": "rest-band" }, clipped);
        el("title", {}, r, "own rest: left out of the duty's peak, mean and time above warning");
      });
      if (d.risk !== null && b - a > 26 && b > m.l && a < m.l + pw) {
        el("text", { x: (Math.max(a, m.l) + Math.min(b, m.l + pw)) / 2, y: m.t - 10, "text-anchor": "middle", "class": "risk-label" },
          clipped, "R " + d.risk.toFixed(2));
      }
    });
    // warning levels
    data.warnings.forEach(function (w, i) {
      el("line", { x1: m.l, x2: m.l + pw, y1: Y(w), y2: Y(w), "class": "warn-line level" + i }, svg);
      el("text", { x: m.l + pw + 4, y: Y(w) + 4, "class": "warn-label" }, svg, "warn " + w);
    });
    // score line: one path per duty, broken at missing values
    var points = 0;
    var mids = [];
    data.duties.forEach(function (d) {
      var path = "";
      var pen = false;
      for (var k = d.first; k < d.first + d.count; k++) {
        var value = data.v[k];
        if (value === null || value === undefined) { pen = false; continue; }
        var t = (data.t0[k] + data.t1[k]) / 2;
        path += (pen ? "L" : "M") + X(t).toFixed(1) + "," + Y(value).toFixed(1);
        pen = true;
        points += 1;
        mids.push([t, k, d]);
      }
      if (path) el("path", { d: path, "class": "score-line" }, clipped);
    });
    // sleep bars
    var sy = m.t + ph + 6;
    data.sleep.forEach(function (s) {
      var a = X(s.start), b = X(s.end);
      var bar = el("rect", { x: a, y: sy, width: Math.max(b - a, 1), height: 10, "class": "sleep " + s.source }, clipped);
      el("title", {}, bar, s.source + " " + s.kind + " sleep " + stamp(s.start) + " " + zone(s.start) + " – " + stamp(s.end) + " " + zone(s.end));
    });
    el("text", { x: m.l - 6, y: sy + 9, "text-anchor": "end", "class": "tick" }, svg, "sleep");
    // time axis
    var axis = el("g", { "class": "grid time" }, svg);
    var step = timeStep(x1 - x0, pw);
    // ticks at whole local hours/days, each stretch between offset changes with its own
    for (var seg = 0; seg < offsets.length; seg++) {
      var from = Math.max(x0, offsets[seg][0]);
      var to = seg + 1 < offsets.length ? Math.min(x1, offsets[seg + 1][0] - 1) : x1;
      var sh = offsets[seg][1] * 60000;
      for (var t = Math.ceil((from + sh) / step) * step - sh; t <= to; t += step) {
        var px = X(t);
        el("line", { x1: px, x2: px, y1: m.t, y2: m.t + ph }, axis);
        var midnight = new Date(t + sh).getUTCHours() === 0;
        el("text", { x: px, y: sy + 28, "text-anchor": "middle", "class": "tick", "data-t": t }, axis, step >= 24 * HOUR ? day(t) : hhmm(t));
        if (midnight && step < 24 * HOUR) {
          el("text", { x: px, y: sy + 42, "text-anchor": "middle", "class": "tick date" }, axis, day(t));
        }
      }
    }
    el("rect", { x: m.l, y: m.t, width: pw, height: ph, "class": "frame" }, svg);

    // hover
    var cross = el("line", { y1: m.t, y2: m.t + ph, "class": "cross", visibility: "hidden" }, svg);
    var dot = el("circle", { r: 4, "class": "dot", visibility: "hidden" }, svg);
    var tip = document.createElement("div");
    tip.className = "chart-tip";
    tip.hidden = true;
    box.appendChild(tip);
    var hit = el("rect", { x: m.l, y: m.t, width: pw, height: ph + 20, "class": "hit" }, svg);
    function hide() { cross.setAttribute("visibility", "hidden"); dot.setAttribute("visibility", "hidden"); tip.hidden = true; }
    hit.addEventListener("mouseleave", hide);
    hit.addEventListener("mousemove", function (event) {
      var rect = svg.getBoundingClientRect();
      var px = event.clientX - rect.left;
      var t = T(px);
      var a = 0, b = mids.length - 1;
      if (b < 0) return hide();
      while (b - a > 1) { var c = (a + b) >> 1; if (mids[c][0] < t) a = c; else b = c; }
      var best = Math.abs(mids[a][0] - t) <= Math.abs(mids[b][0] - t) ? mids[a] : mids[b];
      var bx = X(best[0]);
      if (Math.abs(bx - px) > 24) return hide();
      var k = best[1], d = best[2];
      var value = data.v[k];
      cross.setAttribute("x1", bx); cross.setAttribute("x2", bx); cross.setAttribute("visibility", "visible");
      dot.setAttribute("cx", bx); dot.setAttribute("cy", Y(value)); dot.setAttribute("visibility", "visible");
      tip.textContent = "";
      var lines = [
        data.scale + " " + fmt(value, data.unit),
        stamp(data.t0[k]) + "–" + hhmm(data.t1[k]) + " " + zone(data.t0[k]),
        "duty " + d.index + (d.risk !== null ? " · risk " + d.risk.toFixed(2) : "")
      ];
      lines.forEach(function (line, i) {
        var span = document.createElement(i === 0 ? "strong" : "span");
        span.textContent = line;
        tip.appendChild(span);
      });
      tip.hidden = false;
      var left = bx + 12;
      if (left + 190 > width) left = bx - 200;
      tip.style.left = left + "px";
      tip.style.top = (Y(value) - 10) + "px";
    });
    box.setAttribute("data-points", String(points));
    box.setAttribute("data-intervals", String(data.v.length));
    box.setAttribute("data-duties", String(data.duties.length));
    box.setAttribute("data-sleeps", String(data.sleep.length));
    return points;
  }

  function init(box) {
    var source = document.getElementById(box.getAttribute("data-source"));
    if (!source) return;
    var data = JSON.parse(source.textContent);
    var full = extent(data);
    var state = { windowH: 0, start: full[0], width: -1 };
    var figure = box.closest("figure") || box.parentNode;
    function view() {
      if (!state.windowH) return full;
      var span = state.windowH * HOUR;
      var start = Math.min(Math.max(state.start, full[0]), Math.max(full[0], full[1] - span));
      state.start = start;
      return [start, start + span];
    }
    function render() { state.width = box.clientWidth; draw(box, data, view()); }
    var select = figure.querySelector("[data-window]");
    var anchor = data.anchor ? data.duties[data.anchor - 1] : null;
    if (anchor) { // opened from a duty link: three days centred on that duty
      state.windowH = 72;
      state.start = (anchor.on + anchor.off) / 2 - 36 * HOUR;
      if (select) select.value = "72";
      box.setAttribute("data-anchor", String(data.anchor));
    }
    if (select) {
      select.addEventListener("change", function () { state.windowH = Number(select.value); render(); });
    }
    figure.querySelectorAll("[data-step]").forEach(function (button) {
      button.addEventListener("click", function () {
        if (!state.windowH) return;
        state.start += Number(button.getAttribute("data-step")) * state.windowH * HOUR;
        render();
      });
    });
    render();
    if (window.ResizeObserver) {
      new ResizeObserver(function () { if (box.clientWidth !== state.width && box.clientWidth > 0) render(); }).observe(box);
    }
  }

  function start() { document.querySelectorAll(".chart[data-source]").forEach(init); }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
