import Foundation
import Testing

@testable import Report

/// The HTML report in headless Chromium (Debian's `chromium`, which `make setup` installs).
@Suite struct ReportBrowserTests {
    static let chromium = "/usr/bin/chromium"

    /// The DOM of `url` once its scripts ran.
    static func dumpDOM(_ url: String, extra: [String] = []) throws -> String {
        let profile = NSTemporaryDirectory() + "tlm-chromium-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: profile) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: chromium)
        process.arguments =
            [
                "--headless", "--disable-gpu", "--no-sandbox", "--user-data-dir=\(profile)", "--window-size=1400,1000",
                "--dump-dom", url,
            ] + extra
        let output = NSTemporaryDirectory() + "tlm-dom-\(UUID().uuidString.prefix(8))"
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: output) }
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = ContinuousClock.now + .seconds(90)
        while process.isRunning, ContinuousClock.now < deadline { usleep(20_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return try String(contentsOfFile: output, encoding: .utf8)
    }

    /// An attribute of the first tag of `dom` that contains `marker`.
    static func attribute(_ name: String, of marker: String, in dom: String) -> String? {
        guard let start = dom.range(of: marker) else { return nil }
        let tagStart =
            marker.hasPrefix("<") ? start.lowerBound : dom[..<start.lowerBound].lastIndex(of: "<") ?? start.lowerBound
        let tag = dom[tagStart...].prefix { $0 != ">" }
        guard let match = tag.firstMatch(of: try! Regex("\(name)=\"([^\"]*)\"")) else { return nil }
        return match.output[1].substring.map(String.init)
    }

    @Test func zoomingInDrawsAFinerLevelFromTheFileAlone() throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: Self.chromium),
            "Debian's chromium is needed (make setup installs it)")
        let recording = try ReportTestRecording(seconds: 10, rate: 2000)
        let builder = try ReportBuilder(directory: recording.directory)
        let data = try builder.build(topics: builder.topics)
        #expect(data.series[0].levels.count == 3)
        let file = recording.directory + "/../report.html"
        try Data(HTMLReport(data).text.utf8).write(to: URL(fileURLWithPath: file))
        let marker = "data-topic=\"/sim/D1/value\""

        let whole = try Self.dumpDOM("file://" + file)
        #expect(whole.contains("<pre id=\"console-errors\"></pre>") && whole.contains("data-ready=\"1\""))
        #expect(Self.attribute("data-level", of: marker, in: whole) == "0")
        #expect(Int(Self.attribute("data-drawn", of: marker, in: whole) ?? "") ?? 0 > 1000)
        let drawMilliseconds = try #require(Double(Self.attribute("data-draw-ms", of: "<body", in: whole) ?? ""))
        #expect(drawMilliseconds < 5000)

        // 100 times closer (0.1 s of 10 s): the finest level, 0.3 ms columns, from the same file.
        let zoomed = try Self.dumpDOM("file://" + file + "#t=4.000000,4.100000")
        #expect(zoomed.contains("<pre id=\"console-errors\"></pre>") && zoomed.contains("data-ready=\"1\""))
        #expect(Self.attribute("data-level", of: marker, in: zoomed) == "2")
        // Columns of 0.3 ms hold one value each (one every 0.5 ms): a drawn column per value in view.
        let inView = recording.values.filter {
            $0.time >= data.from + 4_000_000_000 && $0.time < data.from + 4_100_000_000
        }.count
        let drawn = try #require(Int(Self.attribute("data-drawn", of: marker, in: zoomed) ?? ""))
        #expect(drawn >= inView && drawn <= inView + 2, "\(drawn) columns drawn, \(inView) values in view")
        #expect(zoomed.contains("2027-01-15 08:00:04.000000 … 08:00:04.100000 UTC"))
        // The axis spans the values in view (to the quantization's step), not the recording's extremes.
        let step = (data.series[0].maximum! - data.series[0].minimum!) / 65534
        let high = try #require(Double(Self.attribute("data-axis-max", of: marker, in: zoomed) ?? ""))
        let inViewMaximum = recording.values.filter {
            $0.time >= data.from + 4_000_000_000 && $0.time < data.from + 4_100_000_000
        }.map(\.value).max()!
        #expect(abs(high - inViewMaximum) <= 2 * step)
    }

    @Test func theZoomButtonsAndDraggingMoveEveryPlotTogether() throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: Self.chromium),
            "Debian's chromium is needed (make setup installs it)")
        let recording = try ReportTestRecording(seconds: 10, rate: 2000)
        let builder = try ReportBuilder(directory: recording.directory)
        let data = try builder.build(topics: builder.topics)
        // The report, with a script that zooms in twice (a quarter of the range, around its middle), then drags
        // the plot 100 pixels to the left, and records what the page shows once it has redrawn.
        let actions = """
            <script>
            document.getElementById("zoom-in").click();
            document.getElementById("zoom-in").click();
            setTimeout(function () {
              var lane = document.querySelector(".lane.numeric");
              document.body.dataset.zoomed = lane.dataset.level + " " + location.hash;
              var canvas = lane.querySelector("canvas"), box = canvas.getBoundingClientRect();
              document.body.dataset.width = String(box.width);
              canvas.dispatchEvent(new MouseEvent("mousedown", { clientX: box.left + 500, clientY: box.top + 5 }));
              window.dispatchEvent(new MouseEvent("mousemove", { clientX: box.left + 400, clientY: box.top + 5 }));
              window.dispatchEvent(new MouseEvent("mouseup", {}));
              setTimeout(function () { document.body.dataset.panned = location.hash; }, 500);
            }, 500);
            </script></body>
            """
        let html = HTMLReport(data).text.replacingOccurrences(of: "</body>", with: actions)
        let file = recording.directory + "/../interactive.html"
        try Data(html.utf8).write(to: URL(fileURLWithPath: file))
        let dom = try Self.dumpDOMWaiting("file://" + file)
        #expect(dom.contains("<pre id=\"console-errors\"></pre>"))
        let span = Double(data.to - data.from) / 1e9
        // A quarter of 10 s in view: 512 columns of the first level, 2,048 of the second: the second is drawn.
        let zoomed = try #require(Self.attribute("data-zoomed", of: "<body", in: dom))
        let parts = zoomed.split(separator: " ")
        #expect(parts.first == "1")
        let range = try #require(parts.last?.dropFirst(3).split(separator: ",").compactMap { Double($0) })
        #expect(range.count == 2 && abs(range[0] - span * 3 / 8) < 1e-5 && abs(range[1] - span * 5 / 8) < 1e-5)
        // Dragging 100 pixels to the left moves the view later by 100 pixels' worth of time.
        let width = try #require(Double(Self.attribute("data-width", of: "<body", in: dom) ?? ""))
        let panned = try #require(Self.attribute("data-panned", of: "<body", in: dom))
        let moved = try #require(panned.dropFirst(3).split(separator: ",").compactMap { Double($0) }.first)
        #expect(abs(moved - (span * 3 / 8 + 100 / width * span / 4)) < 1e-5, "\(panned)")
    }

    /// The DOM of `url` after its timers ran (a virtual-time budget of 5 s).
    static func dumpDOMWaiting(_ url: String) throws -> String {
        try dumpDOM(url, extra: ["--virtual-time-budget=5000"])
    }
}
