extension HTMLReport {
    /// Builds the lanes from `#report-data`, draws them on canvases, and
    /// zooms and pans them together.
    static let script = #"""
        (function () {
          "use strict";
          var data = JSON.parse(document.getElementById("report-data").textContent);
          var span = data.span, view = [0, span], lanes = [], lossMarks = [];
          var EMPTY = 65535, STEPS = 65534, COLORS = ["#2563eb", "#059669", "#d97706", "#7c3aed", "#db2777", "#0891b2"];
          var root = document.getElementById("lanes"), tooltip = document.getElementById("tooltip");

          function el(tag, cls, text) {
            var e = document.createElement(tag);
            if (cls) e.className = cls;
            if (text !== undefined) e.textContent = text;
            return e;
          }
          function fmt(v) {
            if (v === null || !isFinite(v)) return "–";
            if (Number.isInteger(v) && Math.abs(v) < 1e15) return String(v);
            return String(Number(v.toPrecision(6)));
          }
          function seconds(ns) {
            var s = ns / 1e9, a = Math.abs(s);
            if (a === 0) return "0 s";
            if (a >= 100) return s.toFixed(1) + " s";
            if (a >= 1) return s.toFixed(3) + " s";
            return (s * 1000).toFixed(a >= 0.01 ? 1 : 3) + " ms";
          }
          function plural(n, word) { return n + " " + word + (n === 1 ? "" : "s"); }
          function shortName(topic, group) {
            return topic.indexOf(group + "/") === 0 ? topic.slice(group.length + 1) : topic;
          }
          function decode(level) {
            if (!level.values) {
              var bin = atob(level.data), n = bin.length >> 1, values = new Uint16Array(n);
              for (var i = 0; i < n; i++) values[i] = bin.charCodeAt(2 * i) | (bin.charCodeAt(2 * i + 1) << 8);
              level.values = values;
            }
            return level.values;
          }
          function addLane(parent, cls, name, meta, height) {
            var lane = el("div", "lane " + cls), label = el("div", "label"), plot = el("div", "plot");
            label.appendChild(el("div", "name", name));
            if (meta) label.appendChild(el("div", "meta", meta));
            var canvas = el("canvas");
            canvas.style.height = height + "px";
            plot.appendChild(canvas);
            lane.appendChild(label);
            lane.appendChild(plot);
            parent.appendChild(lane);
            return { element: lane, canvas: canvas, plot: plot, height: height };
          }

          // The time axis and the strip of loss marks, then one group per device.
          var axis = addLane(root, "axis", "", "", 26);
          axis.element.id = "time-axis";
          axis.draw = drawAxis;
          lanes.push(axis);
          if (data.losses.length) {
            var strip = addLane(root, "", "Loss and gaps", plural(data.losses.length, "record"), 16);
            strip.element.id = "loss-strip";
            data.losses.forEach(function (loss) {
              var mark = el("div", "loss-mark");
              mark.dataset.time = loss[5];
              mark.dataset.t = loss[0];
              mark.dataset.tip = (loss[3] || "recording") + "\n" + loss[2] + " lost" +
                (loss[1] ? ", gap of " + seconds(loss[1]) : "") + "\n" + loss[4];
              strip.plot.appendChild(mark);
              lossMarks.push({ element: mark, loss: loss });
            });
            strip.draw = drawLossStrip;
            lanes.push(strip);
          }
          data.groups.forEach(function (group, g) {
            var box = el("div", "group");
            box.appendChild(el("h3", "", group.device + "  ·  " + group.name));
            root.appendChild(box);
            group.lanes.forEach(function (spec, i) {
              var lane;
              if (spec.kind === "numeric") {
                lane = addLane(box, "numeric", shortName(spec.topic, group.name),
                  (spec.unit ? spec.unit + " · " : "") + plural(spec.count, "value"), 86);
                lane.element.dataset.axisMin = String(spec.min);
                lane.element.dataset.axisMax = String(spec.max);
                var unit = spec.unit ? " " + spec.unit : "";
                var top = el("span", "y max", fmt(spec.max) + unit), bottom = el("span", "y min", fmt(spec.min) + unit);
                lane.plot.appendChild(top);
                if (spec.min !== spec.max) lane.plot.appendChild(bottom);
                lane.draw = drawNumeric;
              } else {
                lane = addLane(box, "events", shortName(spec.topic, group.name), plural(spec.count, "event"), 22);
                lane.draw = drawEvents;
              }
              lane.element.dataset.topic = spec.topic;
              lane.spec = spec;
              lane.color = COLORS[(g + i) % COLORS.length];
              lanes.push(lane);
            });
          });

          function x(t, width) { return (t - view[0]) / (view[1] - view[0]) * width; }
          function prepare(lane) {
            var width = lane.measured, ratio = window.devicePixelRatio || 1;
            if (lane.canvas.width !== Math.round(width * ratio) || lane.canvas.height !== Math.round(lane.height * ratio)) {
              lane.canvas.width = Math.round(width * ratio);
              lane.canvas.height = Math.round(lane.height * ratio);
            }
            var ctx = lane.canvas.getContext("2d");
            ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
            ctx.clearRect(0, 0, width, lane.height);
            lane.width = width;
            return ctx;
          }
          function ticks(width) {
            var visible = view[1] - view[0], target = visible / Math.max(2, width / 110);
            var step = Math.pow(10, Math.floor(Math.log10(Math.max(target, 1))));
            if (target / step > 5) step *= 5; else if (target / step > 2) step *= 2;
            var result = [];
            for (var t = Math.ceil(view[0] / step) * step; t <= view[1]; t += step) result.push(t);
            result.step = step;
            return result;
          }
          function shade(ctx, lane) {
            ctx.strokeStyle = "#eef1f5";
            ctx.lineWidth = 1;
            ticks(lane.width).forEach(function (t) {
              var px = Math.round(x(t, lane.width)) + 0.5;
              ctx.beginPath(); ctx.moveTo(px, 0); ctx.lineTo(px, lane.height); ctx.stroke();
            });
            data.losses.forEach(function (loss) {
              var x0 = x(loss[0], lane.width), x1 = x(loss[0] + loss[1], lane.width);
              if (x1 < 0 || x0 > lane.width) return;
              ctx.fillStyle = loss[1] ? "rgba(220, 38, 38, 0.22)" : "rgba(220, 38, 38, 0.14)";
              ctx.fillRect(x0, 0, Math.max(2, x1 - x0), lane.height);
            });
          }
          function drawAxis(lane) {
            var ctx = prepare(lane);
            ctx.fillStyle = "#5b6675";
            ctx.font = "11px system-ui, sans-serif";
            ctx.textBaseline = "top";
            var all = ticks(lane.width), digits = Math.max(0, Math.ceil(-Math.log10(all.step / 1e9) - 1e-9));
            all.forEach(function (t) {
              var px = x(t, lane.width);
              ctx.fillRect(Math.round(px), 18, 1, 8);
              var label = "+" + (t / 1e9).toFixed(digits) + " s";
              if (px + 3 + ctx.measureText(label).width <= lane.width) ctx.fillText(label, px + 3, 4);
            });
          }
          function drawLossStrip(lane) {
            var ctx = prepare(lane);
            lane.element.dataset.width = String(lane.width);
            lossMarks.forEach(function (m) {
              var x0 = x(m.loss[0], lane.width), w = Math.max(2, m.loss[1] / (view[1] - view[0]) * lane.width);
              m.element.dataset.x = x0.toFixed(2);
              m.element.style.left = x0 + "px";
              m.element.style.width = w + "px";
              m.element.style.display = x0 + w < 0 || x0 > lane.width ? "none" : "block";
            });
            ctx.fillStyle = "#fde8e8";
            ctx.fillRect(0, 0, lane.width, lane.height);
          }
          function chooseLevel(levels, width) {
            var visible = view[1] - view[0];
            for (var i = 0; i < levels.length; i++) if (visible / levels[i].width >= width) return i;
            return levels.length - 1;
          }
          function drawNumeric(lane) {
            var ctx = prepare(lane), spec = lane.spec, width = lane.width, height = lane.height;
            shade(ctx, lane);
            if (spec.min === null || !spec.levels.length) return;
            var pad = 7, inner = height - 2 * pad, flat = spec.max === spec.min;
            function y(q) { return flat ? height / 2 : pad + inner * (1 - q / STEPS); }
            var index = chooseLevel(spec.levels, width), level = spec.levels[index], values = decode(level);
            var columns = level.columns, w = level.width, o = level.offset || 0, visible = view[1] - view[0];
            var c0 = Math.max(0, Math.floor((view[0] - o) / w)), c1 = Math.min(columns, Math.ceil((view[1] - o) / w));
            var band = [], mean = [], drawn = 0;
            if ((c1 - c0) >= width) {
              // Several columns per pixel: merge them per pixel column.
              for (var px = 0; px < width; px++) {
                var a = Math.max(c0, Math.floor((view[0] - o + px * visible / width) / w));
                var b = Math.min(c1, Math.max(a + 1, Math.floor((view[0] - o + (px + 1) * visible / width) / w)));
                var lo = EMPTY, hi = -1, sum = 0, n = 0;
                for (var c = a; c < b; c++) {
                  var k = 3 * c;
                  if (values[k] === EMPTY) continue;
                  if (values[k] < lo) lo = values[k];
                  if (values[k + 1] > hi) hi = values[k + 1];
                  sum += values[k + 2]; n++;
                }
                if (!n) continue;
                band.push([px, px + 1, lo, hi]);
                mean.push([px + 0.5, sum / n]);
                drawn++;
              }
            } else {
              for (var col = c0; col < c1; col++) {
                var j = 3 * col;
                if (values[j] === EMPTY) continue;
                var left = x(o + col * w, width), right = x(o + (col + 1) * w, width);
                band.push([left, Math.max(right, left + 1), values[j], values[j + 1]]);
                mean.push([(left + right) / 2, values[j + 2]]);
                drawn++;
              }
            }
            ctx.fillStyle = lane.color;
            ctx.globalAlpha = 0.28;
            band.forEach(function (r) {
              var top = y(r[3]), bottom = y(r[2]);
              ctx.fillRect(r[0], top - 0.5, r[1] - r[0], Math.max(1, bottom - top + 1));
            });
            ctx.globalAlpha = 1;
            ctx.strokeStyle = lane.color;
            ctx.lineWidth = 1.25;
            ctx.beginPath();
            mean.forEach(function (p, i) { if (i) ctx.lineTo(p[0], y(p[1])); else ctx.moveTo(p[0], y(p[1])); });
            ctx.stroke();
            if (mean.length < width / 6) {
              ctx.fillStyle = lane.color;
              mean.forEach(function (p) { ctx.fillRect(p[0] - 1.5, y(p[1]) - 1.5, 3, 3); });
            }
            lane.element.dataset.level = String(index);
            lane.element.dataset.drawn = String(drawn);
            lane.band = band; lane.mean = mean;
          }
          function drawEvents(lane) {
            var ctx = prepare(lane), width = lane.width;
            shade(ctx, lane);
            ctx.fillStyle = lane.color;
            ctx.font = "10.5px system-ui, sans-serif";
            ctx.textBaseline = "middle";
            var lastText = -Infinity, shown = 0;
            lane.spec.marks.forEach(function (m) {
              var px = x(m[0], width);
              if (px < -1 || px > width + 1) return;
              ctx.fillRect(Math.round(px) - 1, 3, 2, lane.height - 6);
              shown++;
              var label = m[1];
              if (px - lastText > 90 && label.length) {
                ctx.fillText(label.length > 16 ? label.slice(0, 15) + "…" : label, px + 4, lane.height / 2);
                lastText = px;
              }
            });
            lane.element.dataset.shown = String(shown);
          }

          function drawAll() {
            // Every width first, then every drawing: no layout between two canvases.
            lanes.forEach(function (lane) { lane.measured = Math.max(1, lane.plot.clientWidth); });
            lanes.forEach(function (lane) { lane.draw(lane); });
            document.getElementById("view-range").textContent =
              "+" + seconds(view[0]) + " … +" + seconds(view[1]) + "  (" + seconds(view[1] - view[0]) + " of " +
              seconds(span) + ")";
          }
          var pending = false, hashTimer = null;
          function redraw() {
            if (pending) return;
            pending = true;
            function run() { if (pending) { pending = false; drawAll(); } }
            // The next frame, or soon when frames do not come (a hidden or headless page).
            window.requestAnimationFrame(run);
            setTimeout(run, 100);
          }
          function setView(a, b) {
            var minimum = Math.min(span, 1000);
            if (b - a < minimum) { var mid = (a + b) / 2; a = mid - minimum / 2; b = mid + minimum / 2; }
            if (b - a > span) { a = 0; b = span; }
            if (a < 0) { b -= a; a = 0; }
            if (b > span) { a -= b - span; b = span; }
            view = [Math.max(0, a), Math.min(span, b)];
            // The address follows once the view settles (browsers throttle frequent history updates).
            clearTimeout(hashTimer);
            hashTimer = setTimeout(function () {
              try {
                history.replaceState(null, "", "#t=" + (view[0] / 1e9).toFixed(6) + "," + (view[1] / 1e9).toFixed(6));
              } catch (e) { /* a page without history (some viewers) keeps its view in memory only */ }
            }, 300);
            redraw();
          }
          function zoom(factor, at) {
            var t = view[0] + (view[1] - view[0]) * at;
            setView(t - (t - view[0]) * factor, t + (view[1] - t) * factor);
          }
          document.getElementById("zoom-in").onclick = function () { zoom(0.5, 0.5); };
          document.getElementById("zoom-out").onclick = function () { zoom(2, 0.5); };
          document.getElementById("zoom-reset").onclick = function () { setView(0, span); };

          var drag = null;
          lanes.forEach(function (lane) {
            var canvas = lane.canvas;
            canvas.addEventListener("wheel", function (e) {
              e.preventDefault();
              var rect = canvas.getBoundingClientRect();
              zoom(Math.exp(e.deltaY * 0.002), (e.clientX - rect.left) / rect.width);
            }, { passive: false });
            canvas.addEventListener("mousedown", function (e) {
              drag = { x: e.clientX, view: view.slice(), width: canvas.getBoundingClientRect().width };
              canvas.style.cursor = "grabbing";
            });
            canvas.addEventListener("dblclick", function () { setView(0, span); });
            canvas.addEventListener("mousemove", function (e) { if (!drag) hover(lane, e); });
            canvas.addEventListener("mouseleave", function () { tooltip.style.display = "none"; });
          });
          window.addEventListener("mousemove", function (e) {
            if (!drag) return;
            var shift = (drag.x - e.clientX) / drag.width * (drag.view[1] - drag.view[0]);
            setView(drag.view[0] + shift, drag.view[1] + shift);
          });
          window.addEventListener("mouseup", function () {
            if (drag) lanes.forEach(function (lane) { lane.canvas.style.cursor = ""; });
            drag = null;
          });
          window.addEventListener("resize", redraw);
          lossMarks.forEach(function (m) {
            m.element.addEventListener("mousemove", function (e) { tip(e, "+" + seconds(m.loss[0]) + "  " + m.element.dataset.tip); });
            m.element.addEventListener("mouseleave", function () { tooltip.style.display = "none"; });
          });
          function tip(e, text) {
            tooltip.textContent = text;
            tooltip.style.display = "block";
            tooltip.style.left = Math.min(e.clientX + 12, window.innerWidth - 300) + "px";
            tooltip.style.top = e.clientY + 14 + "px";
          }
          function hover(lane, e) {
            var rect = lane.canvas.getBoundingClientRect(), px = e.clientX - rect.left;
            var t = view[0] + px / rect.width * (view[1] - view[0]), text = "+" + seconds(t);
            if (lane.spec && lane.spec.kind === "numeric" && lane.band) {
              var range = lane.spec.max - lane.spec.min, best = null;
              lane.band.forEach(function (r, i) { if (best === null && r[0] <= px + 2 && r[1] >= px - 2) best = i; });
              if (best !== null) {
                var r = lane.band[best], q = function (v) { return fmt(lane.spec.min + range * v / STEPS); };
                text += "\nmin " + q(r[2]) + "  max " + q(r[3]) + "  mean " + q(lane.mean[best][1]);
              }
            } else if (lane.spec && lane.spec.kind === "events") {
              var near = null;
              lane.spec.marks.forEach(function (m) { if (Math.abs(x(m[0], rect.width) - px) <= 4) near = m; });
              if (near) text = "+" + seconds(near[0]) + "\n" + near[2];
            }
            tip(e, text);
          }

          // A view in the address (#t=FROM,TO in seconds from the start) is restored: a zoomed view can be shared.
          var hash = /^#t=([0-9.]+),([0-9.]+)$/.exec(window.location.hash);
          if (hash) {
            var a = parseFloat(hash[1]) * 1e9, b = parseFloat(hash[2]) * 1e9;
            if (isFinite(a) && isFinite(b) && b > a) view = [Math.max(0, a), Math.min(span, b)];
          }
          var began = performance.now();
          drawAll();
          document.body.dataset.drawMs = (performance.now() - began).toFixed(1);
          document.body.dataset.ready = "1";
        })();
        """#
}
