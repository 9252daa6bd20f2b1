/* littlegrid report charts: reads the page's chart data (JSON, never HTML) and draws each chart with uPlot.
   Labels reach the DOM only through uPlot's legend and the label table, which set them with textContent. */
(function () {
  "use strict";
  var PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"];
  var registry = { charts: [], errors: [] };
  window.littlegrid = registry;

  function fmt(v) {
    if (v == null) return "—";
    var a = Math.abs(v);
    return a !== 0 && (a >= 1e5 || a < 1e-3) ? v.toExponential(3) : String(+v.toPrecision(4));
  }

  function seriesOptions(s, i) {
    var colour = PALETTE[(s.group == null ? i : s.group) % PALETTE.length];
    var o = { label: s.label, stroke: colour, width: 1.5, spanGaps: true, value: function (u, v) { return fmt(v); } };
    if (s.style === "dash") o.dash = [8, 5];
    if (s.style === "dot") o.dash = [2, 4];
    if (s.style === "points") o.points = { show: true, size: 7, fill: colour };
    if (s.style === "ring") {  // the cells a headline cites: a ring around their point, no line
      o.points = { show: true, size: 15, width: 2.5, stroke: colour, fill: "rgba(255,255,255,0)" };
      o.paths = function () { return null; };
      o.spanGaps = false;
    }
    if (s.style === "bars") {
      o.paths = uPlot.paths.bars({ size: [0.9, 80] });
      o.fill = colour + "66";
      o.points = { show: false };
      o.spanGaps = false;
    }
    return o;
  }

  // Grey out what lies outside the steady window (the trimmed warm-up and cool-down).
  function shadeOutside(u, from, to) {
    var ctx = u.ctx, b = u.bbox, left = u.valToPos(from, "x", true), right = u.valToPos(to, "x", true);
    ctx.save();
    ctx.fillStyle = "rgba(120,120,120,0.13)";
    if (left > b.left) ctx.fillRect(b.left, b.top, Math.min(left, b.left + b.width) - b.left, b.height);
    if (right < b.left + b.width) ctx.fillRect(Math.max(right, b.left), b.top, b.left + b.width - Math.max(right, b.left), b.height);
    ctx.restore();
  }

  // A labelled line across the plot at one value (c.marks: a knee or a capacity), dashed, in its curve's colour.
  function drawMarks(u, marks) {
    var ctx = u.ctx, b = u.bbox, px = window.devicePixelRatio || 1;
    ctx.save();
    ctx.setLineDash([3 * px, 3 * px]);
    ctx.lineWidth = 1.5 * px;
    ctx.font = (11 * px) + "px system-ui, sans-serif";
    marks.forEach(function (m, i) {
      var colour = PALETTE[m.group % PALETTE.length], pos = u.valToPos(m.at, m.axis === "x" ? "x" : "y", true);
      ctx.strokeStyle = ctx.fillStyle = colour;
      ctx.beginPath();
      if (m.axis === "x") {
        if (pos < b.left || pos > b.left + b.width) return;
        ctx.moveTo(pos, b.top); ctx.lineTo(pos, b.top + b.height); ctx.stroke();
        ctx.fillText(m.words, Math.min(pos + 4 * px, b.left + b.width - ctx.measureText(m.words).width), b.top + (12 + 13 * i) * px);
      } else {
        if (pos < b.top || pos > b.top + b.height) return;
        ctx.moveTo(b.left, pos); ctx.lineTo(b.left + b.width, pos); ctx.stroke();
        ctx.fillText(m.words, b.left + 6 * px, pos - 4 * px);
      }
    });
    ctx.restore();
  }

  function draw(c, host) {
    var series = [{ label: c.x_label, value: function (u, v) { return fmt(v); } }];
    c.series.forEach(function (s, i) { series.push(seriesOptions(s, i)); });
    var withData = c.series.filter(function (s) { return s.values.some(function (v) { return v != null; }); }).length;
    var entry = { id: c.id, series: c.series.length, withData: withData, points: c.x.length, drawn: 0 };
    var opts = {
      width: Math.max(320, host.clientWidth || 600),
      height: c.height || 280,
      series: series,
      scales: { x: { time: false, distr: c.log_x ? 3 : 1 }, y: { distr: c.log_y ? 3 : 1 } },
      axes: [{ label: c.x_label, stroke: "#333" }, { label: c.y_label, stroke: "#333", size: 60 }],
      legend: { live: true },
      focus: { alpha: 0.25 },
      cursor: { drag: { x: true, y: false, setScale: true } },
      hooks: {
        drawClear: [function (u) { if (c.window) shadeOutside(u, c.window[0], c.window[1]); }],
        draw: [function (u) {
          if (c.marks && c.marks.length) drawMarks(u, c.marks);
          entry.drawn += 1; host.setAttribute("data-drawn", String(entry.drawn));
        }]
      }
    };
    var data = [c.x].concat(c.series.map(function (s) { return s.values; }));
    var plot = new uPlot(opts, data, host);
    host.setAttribute("data-series", String(plot.series.length - 1));
    host.setAttribute("data-series-with-data", String(withData));
    registry.charts.push(entry);
    return plot;
  }


  // ---- Statistics per label: rows from the page's JSON (#label-data), built with textContent only. ----
  var PAGE_ROWS = 50;

  function fmtNum(v, digits) {  // as fmt.num in render/fmt.py: 3 significant digits, thousands kept whole
    if (v == null || !isFinite(v)) return "—";
    if (v === 0) return "0";
    digits = digits || 3;
    if (Math.abs(v) >= Math.pow(10, digits)) return Math.round(v).toLocaleString("en-US");
    return String(Number(v.toPrecision(digits)));
  }

  function fmtKind(v, kind) {  // as labels.KINDS
    if (v == null) return "—";
    if (kind === "pct") return v === 0 ? "0" : fmtNum(v * 100, Math.abs(v) < 0.1 ? 3 : 4);
    if (kind === "kb") return fmtNum(v / 1024);
    return fmtNum(v);
  }

  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text != null) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }

  function labelFromHash() {
    var h = window.location.hash;
    if (h.indexOf("#label=") !== 0) return null;
    try { return decodeURIComponent(h.slice(7)); } catch (e) { return null; }
  }

  function startLabels() {
    var node = document.getElementById("label-data");
    var body = document.getElementById("lt-rows");
    if (!node || !body) return;
    var data = JSON.parse(node.textContent);
    var cols = data.columns, FIRST = 3;  // row: [label, transaction, has series, figures..., top errors]
    var keyIndex = { label: 0 };
    cols.forEach(function (c, i) { keyIndex[c.key] = FIRST + i; });
    var byLabel = {};
    data.rows.forEach(function (r) { byLabel[r[0]] = r; });
    var state = { text: "", errors: false, tx: false, sort: null, desc: false, page: 0, shown: data.rows };
    var picked = {};
    data.rows.filter(function (r) { return r[2]; })
      .sort(function (a, b) { return b[FIRST] - a[FIRST]; }).slice(0, 5)
      .forEach(function (r) { picked[r[0]] = true; });
    var filter = document.getElementById("lt-filter"), onlyErrors = document.getElementById("lt-errors"),
        onlyTx = document.getElementById("lt-tx"), status = document.getElementById("lt-status"),
        prev = document.getElementById("lt-prev"), next = document.getElementById("lt-next");
    var info = { rows: data.rows.length, shown: 0, page: 0, pages: 0, sort: null, desc: false };
    registry.labels = info;

    function compute() {
      var text = state.text.toLowerCase();
      var rows = data.rows.filter(function (r) {
        return (!text || r[0].toLowerCase().indexOf(text) >= 0) &&
               (!state.errors || r[keyIndex.errors] > 0) && (!state.tx || r[1]);
      });
      if (state.sort) {
        var i = keyIndex[state.sort], sign = state.desc ? -1 : 1;
        rows = rows.map(function (r, k) { return [r, k]; });
        rows.sort(function (a, b) {
          var x = a[0][i], y = b[0][i];
          if (x == null || y == null) return x == null && y == null ? a[1] - b[1] : (x == null ? 1 : -1);  // blanks last
          var c = i === 0 ? (x < y ? -1 : x > y ? 1 : 0) : x - y;
          return c !== 0 ? sign * c : a[1] - b[1];
        });
        rows = rows.map(function (p) { return p[0]; });
      }
      state.shown = rows;
      render();
    }

    function render() {
      var rows = state.shown, pages = Math.max(1, Math.ceil(rows.length / PAGE_ROWS));
      state.page = Math.min(state.page, pages - 1);
      var from = state.page * PAGE_ROWS, to = Math.min(rows.length, from + PAGE_ROWS);
      var frag = document.createDocumentFragment();
      for (var k = from; k < to; k++) frag.appendChild(rowElement(rows[k]));
      while (body.firstChild) body.removeChild(body.firstChild);
      body.appendChild(frag);
      var n = function (v) { return v.toLocaleString("en-US"); };
      status.textContent = rows.length ? ("rows " + n(from + 1) + "–" + n(to) + " of " + n(rows.length) +
        (rows.length < data.rows.length ? " (of " + n(data.rows.length) + " labels)" : "") +
        " · page " + n(state.page + 1) + " of " + n(pages)) : "no label matches";
      prev.disabled = state.page === 0;
      next.disabled = state.page >= pages - 1;
      info.shown = rows.length; info.page = state.page; info.pages = pages; info.sort = state.sort; info.desc = state.desc;
      document.documentElement.setAttribute("data-labels-ready", String(to - from));
    }

    function rowElement(r) {
      var tr = el("tr", null, (r[keyIndex.errors] > 0 ? "lt-has-errors" : "") + (r[1] ? " lt-tx" : ""));
      var pick = el("td", null, "lt-pick"), box = document.createElement("input");
      box.type = "checkbox";
      box.checked = !!picked[r[0]];
      box.disabled = !r[2];
      box.title = r[2] ? "draw this label over time" : "no per-second series: " + (data.series.rule || "");
      box.addEventListener("change", function () { if (box.checked) picked[r[0]] = true; else delete picked[r[0]]; drawLabelCharts(); });
      pick.appendChild(box);
      tr.appendChild(pick);
      var name = el("td", null, "lt-label"), a = el("a", r[0]);
      a.href = "#label=" + encodeURIComponent(r[0]);
      a.title = r[0] + (r[1] ? " (Transaction Controller)" : "");
      name.appendChild(a);
      tr.appendChild(name);
      cols.forEach(function (c, i) { tr.appendChild(el("td", fmtKind(r[FIRST + i], c.kind), "num")); });
      tr.setAttribute("data-label", r[0]);
      return tr;
    }

    var heads = document.querySelectorAll("#label-table thead th[data-key]");
    Array.prototype.forEach.call(heads, function (th) {
      th.querySelector("button").addEventListener("click", function () {
        var key = th.getAttribute("data-key");
        if (state.sort === key) state.desc = !state.desc;
        else { state.sort = key; state.desc = key !== "label"; }  // figures: largest first
        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", state.desc ? "descending" : "ascending");
        state.page = 0;
        compute();
      });
    });
    var pending = null;
    filter.addEventListener("input", function () {
      clearTimeout(pending);
      pending = setTimeout(function () { state.text = filter.value; state.page = 0; compute(); }, 120);
    });
    onlyErrors.addEventListener("change", function () { state.errors = onlyErrors.checked; state.page = 0; compute(); });
    onlyTx.addEventListener("change", function () { state.tx = onlyTx.checked; state.page = 0; compute(); });
    prev.addEventListener("click", function () { state.page -= 1; render(); });
    next.addEventListener("click", function () { state.page += 1; render(); });

    // A label's own section: every figure, its full text and its top errors (#label=<label>).
    function showDetail() {
      var label = labelFromHash(), box = document.getElementById("label-detail");
      if (!box) return;
      var r = label == null ? null : byLabel[label];
      if (!r) { box.hidden = true; return; }
      document.getElementById("ld-name").textContent = r[0];
      var t = document.getElementById("ld-figures");
      while (t.firstChild) t.removeChild(t.firstChild);
      var facts = [["kind", r[1] ? "Transaction Controller" : "sampler"]];
      cols.forEach(function (c, i) { facts.push([c.header, fmtKind(r[FIRST + i], c.kind)]); });
      facts.forEach(function (f) { var tr = el("tr"); tr.appendChild(el("th", f[0])); tr.appendChild(el("td", f[1])); t.appendChild(tr); });
      var errs = document.getElementById("ld-errors");
      while (errs.firstChild) errs.removeChild(errs.firstChild);
      var top = r[r.length - 1];
      if (top.length) {
        errs.appendChild(el("h4", "Top errors"));
        var et = el("table", null, "data"), head = el("tr");
        head.appendChild(el("th", "error type")); head.appendChild(el("th", "count"));
        et.appendChild(head);
        top.forEach(function (e) {
          var tr = el("tr");
          tr.appendChild(el("td", data.error_types[e[0]], "label"));
          tr.appendChild(el("td", fmtNum(e[1]), "num"));
          et.appendChild(tr);
        });
        errs.appendChild(et);
      } else errs.appendChild(el("p", "No errors.", "note"));
      box.hidden = false;
      // show the label's row in the table too: the page that holds it, highlighted
      var at = state.shown.indexOf(r);
      if (at < 0) { filter.value = ""; onlyErrors.checked = onlyTx.checked = false;
                    state.text = ""; state.errors = state.tx = false; compute(); at = state.shown.indexOf(r); }
      state.page = Math.floor(at / PAGE_ROWS);
      render();
      Array.prototype.forEach.call(body.querySelectorAll("tr"), function (tr) {
        if (tr.getAttribute("data-label") === r[0]) tr.classList.add("lt-current");
      });
      box.scrollIntoView();
    }
    window.addEventListener("hashchange", showDetail);

    // Ticked labels over time: one line per label, redrawn when the ticks or the percentile change.
    var labelPlots = {};
    var metric = document.getElementById("lt-metric");
    if (metric) metric.addEventListener("change", drawLabelCharts);
    var resizing = null;
    window.addEventListener("resize", function () {
      clearTimeout(resizing);
      resizing = setTimeout(function () {
        Object.keys(labelPlots).forEach(function (kind) {
          var host = document.querySelector("[data-label-chart='" + kind + "']");
          labelPlots[kind].setSize({ width: Math.max(320, host.clientWidth), height: 280 });
        });
      }, 100);
    });
    function drawLabelCharts() {
      var hosts = document.querySelectorAll("[data-label-chart]");
      var names = Object.keys(picked).filter(function (n) { return data.series.labels[n]; }).sort();
      Array.prototype.forEach.call(hosts, function (host) {
        var kind = host.getAttribute("data-label-chart");
        var key = kind === "latency" ? (metric ? metric.value : "p90_ms") : kind;
        if (labelPlots[kind]) { labelPlots[kind].destroy(); delete labelPlots[kind]; }
        var series = [{ label: "time (s)", value: function (u, v) { return fmt(v); } }];
        var values = [data.series.t];
        names.forEach(function (n, i) {
          series.push(seriesOptions({ label: n, style: "line", group: i }, i));
          values.push(data.series.labels[n][key]);
        });
        var w = data.series.window;
        labelPlots[kind] = new uPlot({
          width: Math.max(320, host.clientWidth || 600), height: 280, series: series,
          scales: { x: { time: false } },
          axes: [{ label: "time (s)", stroke: "#333" }, { label: kind === "latency" ? "ms" : "per second", stroke: "#333", size: 60 }],
          legend: { live: true },
      focus: { alpha: 0.25 }, cursor: { drag: { x: true, y: false, setScale: true } },
          hooks: { drawClear: [function (u) { if (w && w[0] != null) shadeOutside(u, w[0], w[1]); }] }
        }, values, host);
        host.setAttribute("data-series", String(names.length));
      });
    }

    compute();
    drawLabelCharts();
    if (labelFromHash() != null) showDetail();
  }

  function start() {
    var node = document.getElementById("chart-data");
    var list = node ? JSON.parse(node.textContent) : [];
    var byId = {};
    list.forEach(function (c) { byId[c.id] = c; });
    var plots = [];
    var hosts = document.querySelectorAll("[data-chart]");
    for (var i = 0; i < hosts.length; i++) {
      var c = byId[hosts[i].getAttribute("data-chart")];
      if (!c) { registry.errors.push("no data for chart " + hosts[i].getAttribute("data-chart")); continue; }
      try {
        plots.push([draw(c, hosts[i]), hosts[i]]);
      } catch (e) {  // one bad chart must not blank the others; the console shows it (tests fail on it)
        registry.errors.push(c.id + ": " + e);
        console.error("littlegrid chart " + c.id + ": " + e);
      }
    }
    // A finding's evidence link: scroll to the chart (the href does) and bring its curve forward, the other curves
    // dimmed (uPlot's focus); the host says which curve it shows, for tests and for the reader's next click.
    document.addEventListener("click", function (ev) {
      var a = ev.target && ev.target.closest ? ev.target.closest("a.evidence[data-evidence-chart]") : null;
      if (!a) return;
      var id = a.getAttribute("data-evidence-chart"), curve = Number(a.getAttribute("data-curve"));
      plots.forEach(function (p) {
        if (p[1].getAttribute("data-chart") !== id) return;
        var series = byId[id].series;
        for (var k = 0; k < series.length; k++) {
          if (series[k].group === curve && series[k].style === "points") { p[0].setSeries(k + 1, { focus: true }); break; }
        }
        p[1].setAttribute("data-highlighted", String(curve));
      });
    });
    var pending = null;
    window.addEventListener("resize", function () {
      clearTimeout(pending);
      pending = setTimeout(function () {
        plots.forEach(function (p) {
          p[0].setSize({ width: Math.max(320, p[1].clientWidth), height: byId[p[1].getAttribute("data-chart")].height || 280 });
        });
      }, 100);
    });
    try {
      startLabels();
    } catch (e) {
      registry.errors.push("label table: " + e);
      console.error("littlegrid label table: " + e);
    }
    registry.ready = true;
    document.documentElement.setAttribute("data-charts-ready", String(plots.length));
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
