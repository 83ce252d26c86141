extension HTMLReport {
    /// Builds the lanes from `#report-data`, draws them on canvases, and
    /// zooms and pans them together.
    static let script = #"""
        (function () {
          "use strict";
          var data = JSON.parse(document.getElementById("report-data").textContent);
          var span = data.span, view = [0, span], lanes = [], lossMarks = [], relative = false, cursor = null;
          var EMPTY = 65535, STEPS = 65534, COLORS = ["#2563eb", "#059669", "#d97706", "#7c3aed", "#db2777", "#0891b2"];
          var DAY = 86400e9;
          var root = document.getElementById("lanes"), tooltip = document.getElementById("tooltip");
          var readout = document.getElementById("readout");
          // The start's time of day in the report's clock, in nanoseconds (exact: below 2^53), and its day.
          var localMs = data.startMs + data.zoneOffset * 1000;
          var startDay = Math.floor(localMs / 86400000), dayNs = (localMs - startDay * 86400000) * 1e6 + data.startNs;
          var laneTopics = {};
          data.groups.forEach(function (group) { group.lanes.forEach(function (spec) { laneTopics[spec.topic] = true; }); });

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
          function pad(n, width) { var s = String(n); while (s.length < width) s = "0" + s; return s; }
          // A relative time (ns from the start) as the clock time it is: 14:03:07.250 (digits: decimals of seconds).
          function clock(t, digits) {
            var ns = dayNs + t, day = Math.floor(ns / DAY), of = ns - day * DAY;
            var total = Math.floor(of / 1e9), fraction = of - total * 1e9;
            var text = pad(Math.floor(total / 3600), 2) + ":" + pad(Math.floor(total / 60) % 60, 2);
            if (digits >= 0) text += ":" + pad(total % 60, 2);
            if (digits > 0) text += "." + pad(Math.floor(fraction / Math.pow(10, 9 - digits)), digits);
            return text;
          }
          // The calendar date of a relative time in the report's clock: 2026-12-03.
          function date(t) {
            var day = startDay + Math.floor((dayNs + t) / DAY);
            return new Date(day * 86400000).toISOString().slice(0, 10);
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
            var line = el("div", "cursor");
            plot.appendChild(line);
            lane.appendChild(label);
            lane.appendChild(plot);
            parent.appendChild(lane);
            return { element: lane, canvas: canvas, plot: plot, label: label, height: height, cursorLine: line };
          }
          // Whether a loss record belongs on a lane: a recording-wide one on every lane, a stream's on that stream's
          // lane, and one of a stream without a lane (raw notifications) on the lanes of its device.
          function lossOnLane(loss, lane) {
            if (!lane.spec) return false;
            if (!loss[3]) return true;
            if (loss[3] === lane.spec.topic) return true;
            return !laneTopics[loss[3]] && loss[6] === lane.group;
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
              mark.dataset.stream = loss[3];
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
            box.dataset.group = group.name;
            box.appendChild(el("h3", "", group.device === group.name ? group.name : group.device + "  ·  " + group.name));
            root.appendChild(box);
            group.lanes.forEach(function (spec, i) {
              var lane;
              if (spec.kind === "numeric") {
                var several = spec.series.length > 1 || spec.series[0].name !== "";
                var height = spec.series.length > 3 ? 124 : 86;
                lane = addLane(box, "numeric", shortName(spec.topic, group.name),
                  (spec.unit ? spec.unit + " · " : "") + plural(spec.count, several ? "message" : "value"), height);
                spec.series.forEach(function (s, k) {
                  s.color = several ? COLORS[k % COLORS.length] : COLORS[(g + i) % COLORS.length];
                });
                if (several) {
                  var legend = el("div", "legend");
                  spec.series.forEach(function (s) {
                    var key = el("span", "key");
                    key.dataset.series = s.name;
                    var swatch = el("i");
                    swatch.style.background = s.color;
                    key.appendChild(swatch);
                    key.appendChild(document.createTextNode(s.name));
                    key.title = "Show or hide " + s.name;
                    key.onclick = function () { s.hidden = !s.hidden; key.classList.toggle("off", !!s.hidden); redraw(); };
                    legend.appendChild(key);
                  });
                  lane.label.appendChild(legend);
                }
                lane.element.dataset.series = String(spec.series.length);
                lane.ticks = el("div", "yticks");
                lane.plot.appendChild(lane.ticks);
                lane.value = el("div", "cursor-value");
                lane.plot.appendChild(lane.value);
                lane.draw = drawNumeric;
              } else {
                lane = addLane(box, "events", shortName(spec.topic, group.name), plural(spec.count, "event"), 22);
                lane.draw = drawEvents;
              }
              lane.element.dataset.topic = spec.topic;
              lane.spec = spec;
              lane.group = group.name;
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
          // Steps of the time axis, in nanoseconds: 1, 2, 5 × 10^n below a second, then steps of the clock.
          var CLOCK_STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400];
          function ticks(width) {
            var visible = view[1] - view[0], target = visible / Math.max(2, width / 120), step;
            if (target < 1e9) {
              step = Math.pow(10, Math.floor(Math.log10(Math.max(target, 1))));
              if (target / step > 5) step *= 10; else if (target / step > 2) step *= 5; else if (target / step > 1) step *= 2;
            } else {
              step = CLOCK_STEPS[CLOCK_STEPS.length - 1] * 1e9;
              for (var i = 0; i < CLOCK_STEPS.length; i++) if (CLOCK_STEPS[i] * 1e9 >= target) { step = CLOCK_STEPS[i] * 1e9; break; }
            }
            // On whole steps of the clock (relative: of the start).
            var base = relative ? view[0] : (dayNs + view[0]) % step, first = view[0] + (step - base % step) % step;
            if (relative) first = Math.ceil(view[0] / step) * step;
            var result = [];
            for (var t = first; t <= view[1]; t += step) result.push(t);
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
            var marks = 0;
            data.losses.forEach(function (loss) {
              if (!lossOnLane(loss, lane)) return;
              var x0 = x(loss[0], lane.width), x1 = x(loss[0] + loss[1], lane.width);
              if (x1 < 0 || x0 > lane.width) return;
              ctx.fillStyle = loss[1] ? "rgba(220, 38, 38, 0.22)" : "rgba(220, 38, 38, 0.14)";
              ctx.fillRect(x0, 0, Math.max(2, x1 - x0), lane.height);
              marks++;
            });
            lane.element.dataset.losses = String(marks);
          }
          function drawAxis(lane) {
            var ctx = prepare(lane);
            ctx.fillStyle = "#5b6675";
            ctx.font = "11px system-ui, sans-serif";
            ctx.textBaseline = "top";
            var all = ticks(lane.width), step = all.step;
            var digits = step >= 60e9 ? -1 : Math.max(0, Math.ceil(-Math.log10(step / 1e9) - 1e-9)), labels = [];
            all.forEach(function (t) {
              var px = x(t, lane.width);
              ctx.fillRect(Math.round(px), 18, 1, 8);
              var label = relative ? "+" + (t / 1e9).toFixed(Math.max(0, digits)) + " s" : clock(t, digits);
              if (px + 3 + ctx.measureText(label).width <= lane.width) { ctx.fillText(label, px + 3, 4); labels.push(label); }
            });
            lane.element.dataset.ticks = labels.join("|");
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
          // A series' columns in view, per pixel column or per column: [left, right, min, max] and [x, mean], in values.
          function columnsInView(s, width) {
            var index = chooseLevel(s.levels, width), level = s.levels[index], values = decode(level);
            var columns = level.columns, w = level.width, o = level.offset || 0, visible = view[1] - view[0];
            var range = s.max - s.min;
            function value(q) { return q === 0 ? s.min : q === STEPS ? s.max : s.min + range * q / STEPS; }
            var c0 = Math.max(0, Math.floor((view[0] - o) / w)), c1 = Math.min(columns, Math.ceil((view[1] - o) / w));
            var band = [], mean = [];
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
                band.push([px, px + 1, value(lo), value(hi)]);
                mean.push([px + 0.5, value(sum / n)]);
              }
            } else {
              for (var col = c0; col < c1; col++) {
                var j = 3 * col;
                if (values[j] === EMPTY) continue;
                var left = x(o + col * w, width), right = x(o + (col + 1) * w, width);
                band.push([left, Math.max(right, left + 1), value(values[j]), value(values[j + 1])]);
                mean.push([(left + right) / 2, value(values[j + 2])]);
              }
            }
            return { index: index, band: band, mean: mean };
          }
          // Readable steps of a value axis: 1, 2 or 5 × 10^n nearest to one per 22 pixels, labels 15 pixels apart at least.
          function valueTicks(lo, hi, height) {
            var target = (hi - lo) / Math.max(2, height / 22), decade = Math.pow(10, Math.floor(Math.log10(target)));
            var step = decade;
            [2, 5, 10].forEach(function (m) {
              if (Math.abs(Math.log(m * decade / target)) < Math.abs(Math.log(step / target))) step = m * decade;
            });
            while ((hi - lo) / step > height / 15) {
              var m = Math.round(step / Math.pow(10, Math.floor(Math.log10(step) + 1e-9)));
              step *= m === 2 ? 2.5 : 2;
            }
            var digits = Math.max(0, -Math.floor(Math.log10(step) + 1e-9)), result = [];
            for (var v = Math.ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step) result.push([v, v.toFixed(digits)]);
            return result;
          }
          // Ticks of a lane of instants (seconds since the epoch): whole steps of the clock, labelled as dates.
          function dateTicks(lo, hi, height) {
            var target = (hi - lo) / Math.max(2, height / 30), steps = CLOCK_STEPS.concat([172800, 604800, 2592000]);
            var step = steps[steps.length - 1];
            for (var i = 0; i < steps.length; i++) if (steps[i] >= target) { step = steps[i]; break; }
            var result = [], offset = data.zoneOffset;
            for (var v = Math.ceil((lo + offset) / step) * step - offset; v <= hi; v += step) result.push([v, dateText(v, step)]);
            return result;
          }
          // An instant in seconds since the epoch as a date in the report's clock: 2023-11-14 22:13:20.
          function dateText(v, step) {
            var text = new Date((v + data.zoneOffset) * 1000).toISOString().replace("T", " ").slice(0, 19);
            return step >= 86400 ? text.slice(0, 10) : step >= 60 ? text.slice(0, 16) : text;
          }
          function drawNumeric(lane) {
            var ctx = prepare(lane), spec = lane.spec, width = lane.width, height = lane.height;
            shade(ctx, lane);
            lane.ticks.textContent = "";
            lane.drawnSeries = [];
            if (spec.min === null) return;
            // The series in view, and the range of their values in view: the y axis follows the view.
            var lo = Infinity, hi = -Infinity, drawn = 0, levels = [];
            spec.series.forEach(function (s) {
              if (s.min === null || !s.levels.length || s.hidden) return;
              var shown = columnsInView(s, width);
              shown.series = s;
              lane.drawnSeries.push(shown);
              levels.push(shown.index);
              drawn = Math.max(drawn, shown.band.length);
              shown.band.forEach(function (r) { if (r[2] < lo) lo = r[2]; if (r[3] > hi) hi = r[3]; });
            });
            if (!(lo <= hi)) { lo = spec.min; hi = spec.max; }
            lane.element.dataset.axisMin = String(lo);
            lane.element.dataset.axisMax = String(hi);
            if (lo === hi) { var d = Math.abs(lo) * 0.05 || 1; lo -= d; hi += d; }
            var top = 8, inner = height - 16;
            function y(v) { return top + inner * (1 - (v - lo) / (hi - lo)); }
            var unit = spec.unit && !spec.date ? " " + spec.unit : "", labels = [];
            ctx.strokeStyle = "#eef1f5";
            (spec.date ? dateTicks(lo, hi, inner) : valueTicks(lo, hi, inner)).forEach(function (tick) {
              var py = Math.round(y(tick[0])) + 0.5;
              ctx.beginPath(); ctx.moveTo(0, py); ctx.lineTo(width, py); ctx.stroke();
              var label = el("span", "y", tick[1] + unit);
              label.style.top = Math.max(0, Math.min(height - 14, py - 7)) + "px";
              lane.ticks.appendChild(label);
              labels.push(tick[1] + unit);
            });
            lane.drawnSeries.forEach(function (shown) {
              var color = shown.series.color;
              ctx.fillStyle = color;
              ctx.globalAlpha = lane.drawnSeries.length > 1 ? 0.16 : 0.28;
              shown.band.forEach(function (r) {
                var upper = y(r[3]), lower = y(r[2]);
                ctx.fillRect(r[0], upper - 0.5, r[1] - r[0], Math.max(1, lower - upper + 1));
              });
              ctx.globalAlpha = 1;
              ctx.strokeStyle = color;
              ctx.lineWidth = 1.25;
              ctx.beginPath();
              shown.mean.forEach(function (p, i) { if (i) ctx.lineTo(p[0], y(p[1])); else ctx.moveTo(p[0], y(p[1])); });
              ctx.stroke();
              if (shown.mean.length < width / 6) {
                // Few values: each one a visible dot (a single value too).
                shown.mean.forEach(function (p) { ctx.beginPath(); ctx.arc(p[0], y(p[1]), 2.5, 0, 2 * Math.PI); ctx.fill(); });
              }
            });
            lane.element.dataset.level = levels.length ? String(Math.max.apply(null, levels)) : "0";
            lane.element.dataset.drawn = String(drawn);
            lane.element.dataset.yTicks = labels.join("|");
          }
          function drawEvents(lane) {
            var ctx = prepare(lane), width = lane.width;
            shade(ctx, lane);
            ctx.fillStyle = lane.color;
            ctx.font = "10.5px system-ui, sans-serif";
            ctx.textBaseline = "middle";
            // A label only where it does not reach the next one: the marks in between are counted on it (+3).
            var shown = 0, placed = [];
            lane.spec.marks.forEach(function (m) {
              var px = x(m[0], width);
              if (px < -1 || px > width + 1) return;
              ctx.fillRect(Math.round(px) - 1, 3, 2, lane.height - 6);
              shown++;
              var last = placed[placed.length - 1];
              if (last && px < last.end + 6) { last.more++; return; }
              var label = m[1].length > 16 ? m[1].slice(0, 15) + "…" : m[1];
              placed.push({ x: px + 4, text: label, end: px + 4 + ctx.measureText(label).width, more: 0 });
            });
            var texts = [];
            placed.forEach(function (p, i) {
              var text = p.text + (p.more ? " +" + p.more : ""), end = p.x + ctx.measureText(text).width;
              var next = placed[i + 1];
              if (next && end + 4 > next.x - 4) text = p.text;  // no room for the count
              if (!text.length) return;
              ctx.fillStyle = "#fffe";  // a backing: the marks under a label do not cut its letters
              ctx.fillRect(p.x - 2, lane.height / 2 - 7, ctx.measureText(text).width + 4, 14);
              ctx.fillStyle = lane.color;
              ctx.fillText(text, p.x, lane.height / 2);
              texts.push(p.x.toFixed(1) + ":" + (p.x + ctx.measureText(text).width).toFixed(1));
            });
            lane.element.dataset.shown = String(shown);
            lane.element.dataset.labels = texts.join(" ");
          }

          function drawAll() {
            // Every width first, then every drawing: no layout between two canvases.
            lanes.forEach(function (lane) { lane.measured = Math.max(1, lane.plot.clientWidth); });
            lanes.forEach(function (lane) { lane.draw(lane); });
            var visible = view[1] - view[0], digits = visible < 1e9 ? 6 : visible < 600e9 ? 3 : 0;
            document.getElementById("view-range").textContent = relative
              ? "+" + seconds(view[0]) + " … +" + seconds(view[1]) + "  (" + seconds(visible) + " of " + seconds(span) + ")"
              : date(view[0]) + " " + clock(view[0], digits) + " … " + clock(view[1], digits) + " " + data.zone +
                "  (" + seconds(visible) + " of " + seconds(span) + ")";
            showCursor();
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
          var mode = document.getElementById("time-mode");
          mode.onclick = function () {
            relative = !relative;
            mode.textContent = relative ? "Clock time" : "Relative time";
            redraw();
          };

          // The cursor: a line at one instant on every lane, each numeric lane's values there, the instant in the toolbar.
          // A series' value at the cursor: its last column in view at or before it (or up to 3 pixels after), held as
          // a plot of samples holds its last value; none before its first column in view.
          function valueAt(shown, px) {
            var best = null, mean = shown.mean;
            for (var i = 0; i < mean.length && mean[i][0] <= px + 3; i++) best = mean[i][1];
            return best;
          }
          function showCursor() {
            if (cursor === null || cursor < view[0] || cursor > view[1]) {
              lanes.forEach(function (lane) { lane.cursorLine.style.display = "none"; if (lane.value) lane.value.style.display = "none"; });
              readout.textContent = "";
              delete readout.dataset.t;
              return;
            }
            var visible = view[1] - view[0], digits = visible < 2e6 ? 9 : visible < 2e9 ? 6 : 3;
            readout.textContent = date(cursor) + " " + clock(cursor, digits) + " " + data.zone + "  (+" + seconds(cursor) + ")";
            readout.dataset.t = String(cursor);
            lanes.forEach(function (lane) {
              var px = x(cursor, lane.width || 1);
              lane.cursorLine.style.display = "block";
              lane.cursorLine.style.left = px + "px";
              if (!lane.value) return;
              var unit = lane.spec.unit ? " " + lane.spec.unit : "", parts = [];
              (lane.drawnSeries || []).forEach(function (shown) {
                var v = valueAt(shown, px), name = shown.series.name;
                // To the step of the file's quantization: 24, not 23.9999.
                var step = (shown.series.max - shown.series.min) / STEPS;
                if (v !== null && step > 0) { var q = Math.pow(10, Math.floor(Math.log10(step))); v = Math.round(v / q) * q; }
                var text = v === null ? "–" : lane.spec.date ? dateText(v, 1) + " " + data.zone : fmt(v) + unit;
                parts.push((name ? name + " " : "") + text);
              });
              lane.value.textContent = parts.join("   ");
              lane.value.style.display = parts.some(function (p) { return !/–$/.test(p); }) ? "block" : "none";
              lane.value.style.left = px + 6 > lane.width - 260 ? "" : px + 6 + "px";
              lane.value.style.right = px + 6 > lane.width - 260 ? lane.width - px + 6 + "px" : "";
            });
          }

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
            canvas.addEventListener("mousemove", function (e) {
              var rect = canvas.getBoundingClientRect();
              cursor = view[0] + (e.clientX - rect.left) / rect.width * (view[1] - view[0]);
              showCursor();
              if (!drag) hover(lane, e);
            });
            canvas.addEventListener("mouseleave", function () { tooltip.style.display = "none"; });
          });
          root.addEventListener("mouseleave", function () { cursor = null; showCursor(); });
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
            m.element.addEventListener("mousemove", function (e) { tip(e, clock(m.loss[0], 3) + "  " + m.element.dataset.tip); });
            m.element.addEventListener("mouseleave", function () { tooltip.style.display = "none"; });
          });
          function tip(e, text) {
            tooltip.textContent = text;
            tooltip.style.display = "block";
            tooltip.style.left = Math.min(e.clientX + 12, window.innerWidth - 300) + "px";
            tooltip.style.top = e.clientY + 14 + "px";
          }
          function hover(lane, e) {
            // Numeric lanes show their values beside the cursor; an event lane's mark under the pointer gets a tooltip.
            if (!lane.spec || lane.spec.kind !== "events") { tooltip.style.display = "none"; return; }
            var rect = lane.canvas.getBoundingClientRect(), px = e.clientX - rect.left, near = null;
            lane.spec.marks.forEach(function (m) { if (Math.abs(x(m[0], rect.width) - px) <= 4) near = m; });
            if (near) tip(e, clock(near[0], 3) + "  (+" + seconds(near[0]) + ")\n" + near[2]);
            else tooltip.style.display = "none";
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
