// tcpopt console: draws the overview's throughput chart (SVG) from /api/throughput and redraws it
// every two seconds. The time axis covers the history there is, in whole minutes, up to the ten
// minutes the controller keeps. No libraries; nothing else on the pages needs script.
(function () {
  "use strict";
  var figure = document.getElementById("throughput-chart");
  if (!figure) {
    return;
  }
  var svg = figure.querySelector("svg");
  var now = document.getElementById("chart-now");
  var NS = "http://www.w3.org/2000/svg";
  var W = 800, H = 240, LEFT = 78, RIGHT = 10, TOP = 10, BOTTOM = 24, MAX_SPAN = 600000, MINUTE = 60000;

  function rate(bps) {
    var units = ["bit/s", "kbit/s", "Mbit/s", "Gbit/s"], v = bps, u = 0;
    while (v >= 1000 && u < units.length - 1) { v /= 1000; u++; }
    return (v >= 100 || v === Math.round(v) ? v.toFixed(0) : v.toFixed(1)) + units[u];
  }

  function niceMax(v) {
    if (v <= 0) { return 1000; }
    var p = Math.pow(10, Math.floor(Math.log10(v))), n = v / p;
    return (n <= 1 ? 1 : n <= 2 ? 2 : n <= 5 ? 5 : 10) * p;
  }

  function el(name, attrs, text) {
    var e = document.createElementNS(NS, name);
    Object.keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined) { e.textContent = text; }
    return e;
  }

  function draw(data) {
    var samples = data.samples, end = samples.length ? samples[samples.length - 1][0] : Date.now();
    var span = Math.min(MAX_SPAN, Math.max(MINUTE, Math.ceil((end - (samples.length ? samples[0][0] : end)) / MINUTE) * MINUTE));
    var start = end - span;
    var max = niceMax(samples.reduce(function (m, s) { return Math.max(m, s[1], s[2]); }, 0));
    var title = svg.querySelector("title");
    while (svg.lastChild && svg.lastChild !== title) { svg.removeChild(svg.lastChild); }
    var plotW = W - LEFT - RIGHT, plotH = H - TOP - BOTTOM;
    for (var i = 0; i <= 4; i++) {
      var y = TOP + plotH - plotH * i / 4;
      svg.appendChild(el("line", { x1: LEFT, x2: W - RIGHT, y1: y, y2: y, "class": "grid" }));
      svg.appendChild(el("text", { x: LEFT - 6, y: y + 4, "text-anchor": "end", "class": "axis" }, rate(max * i / 4)));
    }
    var ago = function (ms) { return ms < 2 * MINUTE ? "-" + Math.round(ms / 1000) + " s" : "-" + Math.round(ms / MINUTE) + " min"; };
    [[0, ago(span)], [0.5, ago(span / 2)], [1, "now"]].forEach(function (t) {
      svg.appendChild(el("text", { x: LEFT + plotW * t[0], y: H - 6, "text-anchor": t[0] === 0 ? "start" : t[0] === 1 ? "end" : "middle", "class": "axis" }, t[1]));
    });
    [[1, "optimized"], [2, "pass-through"]].forEach(function (series) {
      var points = samples.filter(function (s) { return s[0] >= start; }).map(function (s) {
        var x = LEFT + plotW * (s[0] - start) / span, y = TOP + plotH - plotH * Math.min(1, s[series[0]] / max);
        return x.toFixed(1) + "," + y.toFixed(1);
      });
      if (points.length) {
        svg.appendChild(el("polyline", { points: points.join(" "), "class": series[1], "data-series": series[1] }));
      }
    });
    var last = samples.length ? samples[samples.length - 1] : [0, 0, 0];
    now.textContent = "Now: " + rate(last[1]) + " optimized, " + rate(last[2]) + " pass-through (" + data.activeOptimized
        + " optimized and " + data.activePassThrough + " pass-through flows open)";
  }

  function refresh() {
    fetch(figure.getAttribute("data-source"), { credentials: "same-origin", cache: "no-store" })
      .then(function (r) { if (!r.ok) { throw new Error("HTTP " + r.status); } return r.json(); })
      .then(draw)
      .catch(function (e) { now.textContent = "Chart paused: " + e.message; });
  }

  refresh();
  setInterval(refresh, 2000);
}());
