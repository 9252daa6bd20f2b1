/* littlegrid report charts: reads the page's chart data (JSON, never HTML) and draws each chart with uPlot.
   Labels reach the DOM only through uPlot's legend, which sets them with textContent. */
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

  function draw(c, host) {
    var series = [{ label: c.x_label, value: function (u, v) { return fmt(v); } }];
    c.series.forEach(function (s, i) { series.push(seriesOptions(s, i)); });
    var withData = c.series.filter(function (s) { return s.values.some(function (v) { return v != null; }); }).length;
    var entry = { id: c.id, series: c.series.length, withData: withData, points: c.x.length, drawn: 0 };
    var opts = {
      width: Math.max(320, host.clientWidth || 600),
      height: 280,
      series: series,
      scales: { x: { time: false, distr: c.log_x ? 3 : 1 }, y: { distr: c.log_y ? 3 : 1 } },
      axes: [{ label: c.x_label, stroke: "#333" }, { label: c.y_label, stroke: "#333", size: 60 }],
      legend: { live: true },
      cursor: { drag: { x: true, y: false, setScale: true } },
      hooks: {
        drawClear: [function (u) { if (c.window) shadeOutside(u, c.window[0], c.window[1]); }],
        draw: [function () { entry.drawn += 1; host.setAttribute("data-drawn", String(entry.drawn)); }]
      }
    };
    var data = [c.x].concat(c.series.map(function (s) { return s.values; }));
    var plot = new uPlot(opts, data, host);
    host.setAttribute("data-series", String(plot.series.length - 1));
    host.setAttribute("data-series-with-data", String(withData));
    registry.charts.push(entry);
    return plot;
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
    var pending = null;
    window.addEventListener("resize", function () {
      clearTimeout(pending);
      pending = setTimeout(function () {
        plots.forEach(function (p) { p[0].setSize({ width: Math.max(320, p[1].clientWidth), height: 280 }); });
      }, 100);
    });
    registry.ready = true;
    document.documentElement.setAttribute("data-charts-ready", String(plots.length));
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
