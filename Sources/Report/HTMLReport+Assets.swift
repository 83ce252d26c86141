extension HTMLReport {
    /// Runs first: collects uncaught errors and `console.error` calls into
    /// `#console-errors`, where a reader (or a test) sees them.
    static let errorCatcher = #"""
        (function () {
          var errors = [];
          function note(text) {
            errors.push(String(text));
            var pre = document.getElementById("console-errors");
            if (pre) { pre.textContent = errors.join("\n"); pre.style.display = "block"; }
          }
          window.addEventListener("error", function (e) { note("error: " + e.message + " at " + e.lineno); });
          var original = console.error;
          console.error = function () { note(Array.prototype.join.call(arguments, " ")); original.apply(console, arguments); };
          window.__reportErrors = errors;
          document.addEventListener("DOMContentLoaded", function () { if (errors.length) note(""); });
        })();
        """#

    static let style = #"""
        :root { --fg: #1d2430; --muted: #5b6675; --line: #e3e7ee; --bg: #f6f8fb; --accent: #2563eb;
                --loss: rgba(220, 38, 38, 0.16); --gap: rgba(220, 38, 38, 0.28); --label: 230px; }
        * { box-sizing: border-box; }
        body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg);
               background: var(--bg); }
        header, section, footer { max-width: 1600px; margin: 0 auto; padding: 12px 24px; }
        header { padding-top: 20px; }
        h1 { font-size: 22px; margin: 0 0 8px; }
        h2 { font-size: 16px; margin: 10px 0 8px; color: var(--fg); }
        h3 { font-size: 13px; margin: 14px 0 4px; color: var(--muted); text-transform: none; font-weight: 600; }
        .facts { display: grid; grid-template-columns: repeat(4, max-content 1fr); gap: 2px 12px; margin: 0; }
        .facts dt { color: var(--muted); } .facts dd { margin: 0; }
        table { border-collapse: collapse; background: #fff; border: 1px solid var(--line); font-size: 12.5px; }
        th, td { padding: 3px 10px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
        th { background: #eef2f7; font-weight: 600; } td.n { text-align: right; font-variant-numeric: tabular-nums; }
        code { font: 12px ui-monospace, "DejaVu Sans Mono", monospace; }
        .note, .hint, footer { color: var(--muted); font-size: 12px; }
        #console-errors { display: none; margin: 0; padding: 8px 24px; background: #fee2e2; color: #991b1b; }
        #toolbar { position: sticky; top: 0; z-index: 5; display: flex; flex-wrap: wrap; gap: 8px; align-items: center;
                   background: var(--bg); padding: 6px 0; }
        #toolbar button { white-space: nowrap; font: inherit; padding: 2px 10px; border: 1px solid #c7cfdb; background: #fff; border-radius: 4px;
                          cursor: pointer; }
        #view-range { font-variant-numeric: tabular-nums; margin-left: 8px; white-space: nowrap; }
        #lanes { background: #fff; border: 1px solid var(--line); padding: 4px 8px 8px; }
        .group { margin-bottom: 6px; }
        .lane { display: flex; align-items: stretch; border-top: 1px solid #f0f2f6; }
        .lane .label { width: var(--label); flex: none; padding: 4px 8px 4px 0; font-size: 12px; overflow: hidden; }
        .lane .label .name { font-weight: 600; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
        .lane .label .meta { color: var(--muted); white-space: nowrap; }
        .lane .plot { position: relative; flex: 1; min-width: 0; }
        .lane canvas { display: block; width: 100%; cursor: grab; }
        .lane .y { position: absolute; left: 4px; font-size: 10.5px; line-height: 14px; color: var(--muted);
                   background: rgba(255,255,255,.8); padding: 0 2px; pointer-events: none;
                   font-variant-numeric: tabular-nums; }
        .legend { display: flex; flex-wrap: wrap; gap: 0 8px; margin-top: 2px; }
        .legend .key { cursor: pointer; white-space: nowrap; font-size: 11.5px; user-select: none; }
        .legend .key i { display: inline-block; width: 10px; height: 3px; margin: 0 4px 3px 0; vertical-align: middle; }
        .legend .key.off { opacity: .35; text-decoration: line-through; }
        .lane .cursor { position: absolute; top: 0; bottom: 0; width: 1px; background: #111827; opacity: .55;
                        pointer-events: none; display: none; }
        .lane .cursor-value { position: absolute; top: 1px; display: none; pointer-events: none; font-size: 11px;
                              background: rgba(17,24,39,.85); color: #fff; padding: 0 5px; border-radius: 3px;
                              white-space: nowrap; font-variant-numeric: tabular-nums; }
        #readout { font-variant-numeric: tabular-nums; font-weight: 600; margin-left: 8px; white-space: nowrap; }
        .axis .label { color: var(--muted); font-size: 11px; }
        #loss-strip .plot { height: 16px; }
        .loss-mark { position: absolute; top: 3px; height: 10px; min-width: 2px; background: #dc2626; opacity: .75; }
        #tooltip { position: fixed; display: none; pointer-events: none; background: #111827; color: #fff; font-size: 12px;
                   padding: 4px 8px; border-radius: 4px; max-width: 520px; z-index: 10; white-space: pre-wrap; }
        p.empty { color: var(--muted); font-style: italic; }
        """#
}
