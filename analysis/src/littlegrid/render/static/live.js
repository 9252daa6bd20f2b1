/* littlegrid live view: polls /status.json (its own origin, nothing else) and redraws the page from it.
   Text from the run (cell ids, axes, check explanations) reaches the DOM only through textContent. */
(function () {
  "use strict";
  var PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"];
  var state = { ready: false, updates: 0, errors: [], charts: {}, lastStatus: null };
  window.littlegridLive = state;
  var plots = {};

  function fmt(v, digits) {
    if (v == null) return "—";
    var a = Math.abs(v);
    if (a !== 0 && (a >= 1e6 || a < 1e-3)) return v.toExponential(3);
    return String(+v.toPrecision(digits || 4));
  }
  function pct(v) { return v == null ? "—" : fmt(100 * v, 3) + " %"; }
  function secs(v) { return v == null ? "—" : Math.round(v) + " s"; }
  function text(el, value) { if (el) el.textContent = value; }
  function byId(id) { return document.getElementById(id); }

  // One uPlot per chart; created on its first data, rebuilt when the number of series changes.
  function chart(id, xLabel, yLabel, x, series, window0) {
    var host = document.querySelector("[data-live-chart='" + id + "']");
    if (!host) return;
    var data = [x].concat(series.map(function (s) { return s.values; }));
    var p = plots[id];
    if (p && p.series.length !== series.length + 1) { p.destroy(); p = null; }
    if (!p) {
      var opts = {
        width: Math.max(320, host.clientWidth || 560), height: 240,
        scales: { x: { time: false } },
        series: [{ label: xLabel, value: function (u, v) { return fmt(v); } }].concat(series.map(function (s, i) {
          return { label: s.label, stroke: PALETTE[i % PALETTE.length], width: 1.5, spanGaps: true,
                   points: { show: !!s.points, size: 6 }, value: function (u, v) { return fmt(v); } };
        })),
        axes: [{ label: xLabel, stroke: "#333" }, { label: yLabel, stroke: "#333", size: 60 }],
        legend: { live: true },
        hooks: {
          drawClear: [function (u) {  // grey the warm-up: it is not in the steady window
            if (u._warmup == null) return;
            var ctx = u.ctx, b = u.bbox, right = Math.min(u.valToPos(u._warmup, "x", true), b.left + b.width);
            if (right > b.left) { ctx.save(); ctx.fillStyle = "rgba(120,120,120,0.13)"; ctx.fillRect(b.left, b.top, right - b.left, b.height); ctx.restore(); }
          }],
          draw: [function () {
            var c = state.charts[id] = state.charts[id] || { drawn: 0 };
            c.drawn += 1; host.setAttribute("data-drawn", String(c.drawn));
          }]
        }
      };
      p = plots[id] = new uPlot(opts, data, host);
    }
    p._warmup = window0;
    p.setData(data);
    var entry = state.charts[id] = state.charts[id] || { drawn: 0 };
    entry.points = x.length;
    entry.series = series.length;
    host.setAttribute("data-points", String(x.length));
  }

  function showCell(c) {
    text(byId("cell-id"), c ? c.id : "none (between cells)");
    text(byId("cell-note"), c ? (c.note || "") + (c.rows_skipped ? " " + c.rows_skipped + " rows skipped." : "") : "");
    var f = (c && c.figures) || {}, latest = (c && c.latest) || {};
    var values = {
      elapsed: c ? secs(c.elapsed_s) + " / " + secs(c.duration_s) + " (warm-up " + secs(c.warmup_s) + ")" : "—",
      samples: c ? String(c.samples || 0) : "—",
      throughput_per_s: fmt(f.throughput_per_s), error_rate: f.count == null ? "—" : f.errors + " (" + pct(f.error_rate) + ")",
      mean_ms: fmt(f.mean_ms), p50_ms: fmt(f.p50_ms), p90_ms: fmt(f.p90_ms), p99_ms: fmt(f.p99_ms),
      busy_threads: fmt(latest.busy_threads), in_flight: fmt(latest.in_flight), load1: fmt(latest.load1)
    };
    document.querySelectorAll("[data-figure]").forEach(function (el) {
      var v = values[el.getAttribute("data-figure")]; text(el, v == null ? "—" : v);
    });
    var s = c && c.series;
    if (!s) return;
    var w = s.window_start_s;
    chart("throughput", "s since the first sample", "per second", s.t_s,
          [{ label: "throughput", values: s.throughput }, { label: "errors", values: s.errors }], w);
    chart("latency", "s since the first sample", "ms", s.t_s,
          [{ label: "p50", values: s.p50_ms }, { label: "p90", values: s.p90_ms }, { label: "p99", values: s.p99_ms }], w);
    chart("threads", "s since the first sample", "threads / requests", s.t_s,
          [{ label: "active threads", values: s.active_threads }, { label: "server busy threads", values: s.busy_threads },
           { label: "server in-flight", values: s.in_flight }], w);
    chart("host", "s since the first sample", "load", s.t_s, [{ label: "load1", values: s.load1 }], w);
  }

  function cellRow(r) {
    var tr = document.createElement("tr");
    var failed = r.checks.filter(function (k) { return k.passed === false; });
    var passed = r.checks.filter(function (k) { return k.passed === true; }).length;
    tr.className = failed.length ? "fail" : "pass";
    [r.id, r.status, fmt(r.users), fmt(r.throughput_per_s), r.errors == null ? "—" : r.errors + " (" + pct(r.error_rate) + ")",
     fmt(r.mean_ms), fmt(r.p50_ms), fmt(r.p90_ms), fmt(r.p99_ms), fmt(r.busy_threads_mean), fmt(r.load1_mean)
    ].forEach(function (v, i) {
      var td = document.createElement("td"); td.textContent = v; if (i >= 2) td.className = "num"; tr.appendChild(td);
    });
    var td = document.createElement("td");
    td.className = "explanation";
    td.textContent = passed + " pass, " + failed.length + " fail" +
      failed.map(function (k) { return "; " + k.name + ": " + k.explanation; }).join("");
    if (r.reason) td.textContent += " (" + r.reason + ")";
    tr.appendChild(td);
    return tr;
  }

  function showGrid(status) {
    text(byId("cells-finished"), String(status.run.cells_finished));
    text(byId("cells-total"), String(status.run.cells_total));
    var body = document.querySelector("#cells-table tbody");
    var rows = status.cells.map(cellRow);
    body.replaceChildren.apply(body, rows);
    var curves = status.curves;
    if (!curves.length) return;
    // one x axis for every curve (N, or the offered rate λ: the analysis's curves say which), nulls where a curve
    // has no cell
    var xs = [];
    curves.forEach(function (c) { c.x.forEach(function (n) { if (xs.indexOf(n) < 0) xs.push(n); }); });
    xs.sort(function (a, b) { return a - b; });
    var xName = curves[0].x_name === "N" ? "users N" : "offered rate λ (/s)";
    function on(c, key) { return xs.map(function (n) { var i = c.x.indexOf(n); return i < 0 ? null : c[key][i]; }); }
    chart("x-vs-users", xName, "X /s", xs, curves.map(function (c) { return { label: c.name, values: on(c, "throughput_per_s"), points: true }; }), null);
    var r = [];
    curves.forEach(function (c) {
      r.push({ label: c.name + " mean", values: on(c, "mean_ms"), points: true });
      r.push({ label: c.name + " p90", values: on(c, "p90_ms"), points: true });
    });
    chart("r-vs-users", xName, "ms", xs, r, null);
  }

  function showSearch(search) {
    var section = byId("search");
    section.hidden = !search;
    if (!search) return;
    var body = byId("search-facts");
    body.replaceChildren.apply(body, Object.keys(search).map(function (k) {
      var tr = document.createElement("tr"), th = document.createElement("th"), td = document.createElement("td");
      th.textContent = k;
      var v = search[k];
      td.textContent = typeof v === "object" && v !== null ? JSON.stringify(v) : String(v);
      tr.appendChild(th); tr.appendChild(td);
      return tr;
    }));
  }

  function show(status) {
    state.lastStatus = status;
    text(byId("run-title"), status.run.title || status.run.id || "");
    text(byId("run-state"), "run " + (status.run.id || "") + ": " + status.run.state + "; updated " +
         new Date(status.updated_ms).toLocaleTimeString());
    showCell(status.cell);
    showGrid(status);
    showSearch(status.search);
    state.updates += 1;
    state.ready = true;
  }

  function poll() {
    fetch("status.json", { cache: "no-store" })
      .then(function (r) { if (!r.ok) throw new Error("status " + r.status); return r.json(); })
      .then(function (status) {
        show(status);
        setTimeout(poll, Math.max(500, 1000 * (status.update_s || 1)));
      })
      .catch(function (e) {  // the run ended (server gone) or a hiccup: keep the last figures, try again
        state.errors.push(String(e));
        text(byId("run-state"), "no answer from the run (" + e + "); the last figures stay shown");
        setTimeout(poll, 2000);
      });
  }
  poll();
})();
