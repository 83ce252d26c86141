import Foundation
import Recording
import Testing

@testable import Report

/// The report's fields, axes, cursor and loss lanes, read from the DOM headless Chromium leaves.
@Suite struct ReportAxesBrowserTests {
    typealias Browser = ReportBrowserTests

    /// The report of `recording` written next to it, with `script` run after the report's own.
    static func write(
        _ data: ReportData, to directory: String, named name: String, script: String = ""
    ) throws
        -> String
    {
        let html = HTMLReport(data).text.replacingOccurrences(of: "</body>", with: script + "</body>")
        let file = directory + "/../" + name
        try Data(html.utf8).write(to: URL(fileURLWithPath: file))
        return "file://" + file
    }

    /// The text of the lane element of `topic` up to the next lane.
    static func lane(_ topic: String, in dom: String) throws -> Substring {
        let marker = try #require(dom.range(of: "data-topic=\"\(topic)\""), "no lane of \(topic)")
        let start = dom[..<marker.lowerBound].range(of: "<div class=\"lane", options: .backwards)?.lowerBound
        let from = try #require(start)
        let rest = dom[marker.upperBound...]
        let end = rest.range(of: "<div class=\"lane")?.lowerBound ?? rest.endIndex
        return dom[from..<end]
    }

    static func requireChromium() throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: Browser.chromium),
            "Debian's chromium is needed (make setup installs it)")
    }

    @Test func theIMULaneHasSixSeriesAndALegend() throws {
        try Self.requireChromium()
        let recording = try FieldsTestRecording()
        let builder = try ReportBuilder(directory: recording.directory)
        let data = try builder.build(topics: builder.topics)
        let dom = try Browser.dumpDOM(try Self.write(data, to: recording.directory, named: "imu.html"))
        #expect(dom.contains("<pre id=\"console-errors\"></pre>") && dom.contains("data-ready=\"1\""))
        let lane = try Self.lane("/sim/D1/imu", in: dom)
        #expect(lane.hasPrefix("<div class=\"lane numeric\""))
        #expect(Browser.attribute("data-series", of: "<div", in: String(lane)) == "6")
        // A legend key per axis, in schema order.
        let keys = lane.matches(of: try Regex("data-series=\"([a-z_]+)\"")).compactMap { $0.output[1].substring }
        #expect(keys.map(String.init) == FieldsTestRecording.axes)
        // The axis spans every axis' values: accel_x from 75, gyro_z up to 624.
        #expect(Browser.attribute("data-axis-min", of: "<div", in: String(lane)) == "75")
        #expect(Browser.attribute("data-axis-max", of: "<div", in: String(lane)) == "624")
        #expect(Int(Browser.attribute("data-drawn", of: "<div", in: String(lane)) ?? "") ?? 0 > 500)
        // No event lane for it any more.
        #expect(!dom.contains("class=\"lane events\" data-topic=\"/sim/D1/imu\""))
    }

    @Test func zoomingTo50MillisecondsRescalesTheYTicksAndTheClockTicks() throws {
        try Self.requireChromium()
        let recording = try FieldsTestRecording()
        let builder = try ReportBuilder(directory: recording.directory)
        let data = try builder.build(topics: builder.topics)
        let url = try Self.write(data, to: recording.directory, named: "zoom.html")
        let whole = try Browser.dumpDOM(url)
        let zoomed = try Browser.dumpDOM(url + "#t=2.000000,2.050000")
        for dom in [whole, zoomed] {
            #expect(dom.contains("<pre id=\"console-errors\"></pre>") && dom.contains("data-ready=\"1\""))
        }
        let marker = "data-topic=\"/sim/D1/value\""
        let wholeTicks = try #require(Browser.attribute("data-y-ticks", of: marker, in: whole))
        let zoomedTicks = try #require(Browser.attribute("data-y-ticks", of: marker, in: zoomed))
        #expect(wholeTicks != zoomedTicks)
        // Every tick carries the unit.
        #expect(wholeTicks.split(separator: "|").allSatisfy { $0.hasSuffix(" [g]") }, "\(wholeTicks)")
        #expect(zoomedTicks.split(separator: "|").allSatisfy { $0.hasSuffix(" [g]") }, "\(zoomedTicks)")
        // The axis is the range of the values in view (to the quantization's step), not the recording's.
        let inView = (4000..<4100).map { sin(Double($0) / 40) * 100 + Double($0 % 7) }
        let step = ((data.series.first { $0.topic == "/sim/D1/value" }?.maximum ?? 0) + 107) / 65534
        let low = try #require(Double(Browser.attribute("data-axis-min", of: marker, in: zoomed) ?? ""))
        let high = try #require(Double(Browser.attribute("data-axis-max", of: marker, in: zoomed) ?? ""))
        #expect(abs(low - inView.min()!) <= 2 * step && abs(high - inView.max()!) <= 2 * step, "\(low) \(high)")
        // Ticks at readable steps inside that range.
        let values = zoomedTicks.split(separator: "|").compactMap { Double($0.dropLast(4)) }
        #expect(values.count >= 2 && values.allSatisfy { $0 >= low - 1e-9 && $0 <= high + 1e-9 })
        // The time axis in clock times (UTC): 2027-01-15 08:00:00 is the start.
        let clock = try #require(Browser.attribute("data-ticks", of: "id=\"time-axis\"", in: whole))
        #expect(clock.split(separator: "|").first == "08:00:00.0", "\(clock)")
        let fine = try #require(Browser.attribute("data-ticks", of: "id=\"time-axis\"", in: zoomed))
        #expect(fine.split(separator: "|").first?.hasPrefix("08:00:02.0") == true, "\(fine)")
        #expect(zoomed.contains("2027-01-15 08:00:02.000000 … 08:00:02.050000 UTC"))
    }

    @Test func theCursorReadoutShowsTheClockTimeAndEachLanesValueWithItsUnit() throws {
        try Self.requireChromium()
        let recording = try FieldsTestRecording()
        let builder = try ReportBuilder(directory: recording.directory)
        let data = try builder.build(topics: builder.topics)
        // The pointer at 40 % of the value lane's width; the page records what the cursor shows on every lane.
        let script = """
            <script>
            setTimeout(function () {
              var canvas = document.querySelector('[data-topic="/sim/D1/value"] canvas'), box = canvas.getBoundingClientRect();
              canvas.dispatchEvent(new MouseEvent("mousemove", { clientX: box.left + box.width * 0.4, clientY: box.top + 5 }));
              document.body.dataset.readout = document.getElementById("readout").textContent;
              document.body.dataset.at = document.getElementById("readout").dataset.t;
              document.querySelectorAll(".lane.numeric").forEach(function (lane) {
                lane.dataset.cursorText = lane.querySelector(".cursor-value").textContent;
                lane.dataset.cursorLeft = lane.querySelector(".cursor").style.left;
              });
            }, 300);
            </script>
            """
        let dom = try Browser.dumpDOM(
            try Self.write(data, to: recording.directory, named: "cursor.html", script: script),
            extra: ["--virtual-time-budget=3000"])
        #expect(dom.contains("<pre id=\"console-errors\"></pre>"))
        let at = try #require(Double(Browser.attribute("data-at", of: "<body", in: dom) ?? ""))
        let span = Double(data.to - data.from)
        #expect(abs(at - span * 0.4) < span / 1000)
        // 40 % of 4 s: 08:00:01.6 (to the pixel).
        let readout = try #require(Browser.attribute("data-readout", of: "<body", in: dom))
        #expect(readout.hasPrefix("2027-01-15 08:00:01.") && readout.contains(" UTC"), "\(readout)")
        // The value there with its unit, on the lane under the pointer and on the other device's lane alike.
        let value = try #require(Browser.attribute("data-cursor-text", of: "data-topic=\"/sim/D1/value\"", in: dom))
        let index = Int(at / 500_000)
        let number = try #require(Double(value.dropLast(4)), "\(value)")
        #expect(value.hasSuffix(" [g]") && abs(number - (sin(Double(index) / 40) * 100 + Double(index % 7))) < 12)
        let temp = try #require(Browser.attribute("data-cursor-text", of: "data-topic=\"/sim/D2/temp\"", in: dom))
        #expect(temp.hasSuffix(" Cel") && temp.hasPrefix("21."), "\(temp)")
        let imu = try #require(Browser.attribute("data-cursor-text", of: "data-topic=\"/sim/D1/imu\"", in: dom))
        #expect(imu.hasPrefix("accel_x ") && imu.contains("gyro_z "), "\(imu)")
        // One cursor line at the same place on every lane.
        let lefts = Set(
            dom.matches(of: try Regex("data-cursor-left=\"([0-9.]+)px\"")).compactMap { $0.output[1].substring })
        #expect(lefts.count == 1)
    }

    @Test func aLossMarkSitsOnlyOnItsStreamsLane() throws {
        try Self.requireChromium()
        let recording = try FieldsTestRecording()
        let builder = try ReportBuilder(directory: recording.directory)
        let data = try builder.build(topics: builder.topics)
        #expect(data.losses.map(\.time) == [FieldsTestRecording.lossTime])
        let dom = try Browser.dumpDOM(try Self.write(data, to: recording.directory, named: "loss.html"))
        #expect(dom.contains("<pre id=\"console-errors\"></pre>") && dom.contains("data-ready=\"1\""))
        #expect(Browser.attribute("data-losses", of: "data-topic=\"/sim/D1/value\"", in: dom) == "1")
        for topic in ["/sim/D1/imu", "/sim/D2/temp", "/sim/D2/level"] {
            #expect(Browser.attribute("data-losses", of: "data-topic=\"\(topic)\"", in: dom) == "0", "\(topic)")
        }
    }

    @Test func eventLabelsNeverOverlap() throws {
        try Self.requireChromium()
        // A gesture every 250 ms for 10 s: 40 labels on about 1,150 pixels, 29 pixels apart.
        let recording = try ReportTestRecording(seconds: 10, rate: 100)
        let builder = try ReportBuilder(directory: recording.directory)
        let data = try builder.build(topics: builder.topics)
        let dom = try Browser.dumpDOM(try Self.write(data, to: recording.directory, named: "events.html"))
        let labels = try #require(Browser.attribute("data-labels", of: "data-topic=\"/sim/D1/gesture\"", in: dom))
        let extents = labels.split(separator: " ").map { $0.split(separator: ":").compactMap { Double($0) } }
        #expect(extents.count >= 5 && extents.count < 40, "\(labels)")
        for (left, right) in zip(extents, extents.dropFirst()) { #expect(left[1] < right[0], "\(labels)") }
        // The marks between two labels are counted on the first.
        #expect(dom.contains("data-shown=\"40\""))
    }

    @Test func theTimeAxisIsInTheZoneAskedForAndRelativeOnTheButton() throws {
        try Self.requireChromium()
        let recording = try FieldsTestRecording()
        let builder = try ReportBuilder(directory: recording.directory)
        let data = try builder.build(topics: ["/sim/D1/value"])
        let zone = try #require(TimeZone(identifier: "Asia/Kolkata"))
        let html = HTMLReport(data, timeZone: zone).text
        // After the first drawing, the page notes the clock ticks, then switches to relative time.
        let script = """
            <script>
            setTimeout(function () {
              var axis = document.getElementById("time-axis");
              document.body.dataset.clock = axis.dataset.ticks + "/" + document.getElementById("view-range").textContent;
              document.getElementById("time-mode").click();
              setTimeout(function () { document.body.dataset.relative = axis.dataset.ticks; }, 300);
            }, 200);
            </script>
            """
        let file = recording.directory + "/../zone.html"
        try Data(html.replacingOccurrences(of: "</body>", with: script + "</body>").utf8)
            .write(to: URL(fileURLWithPath: file))
        let dom = try Browser.dumpDOM("file://" + file, extra: ["--virtual-time-budget=3000"])
        #expect(dom.contains("<pre id=\"console-errors\"></pre>"))
        // 08:00 UTC is 13:30 in India (UTC+05:30).
        let clock = try #require(Browser.attribute("data-clock", of: "<body", in: dom))
        #expect(clock.hasPrefix("13:30:00.0|13:30:00.5|"), "\(clock)")
        #expect(clock.contains("2027-01-15 13:30:00.000 … 13:30:03.999 UTC+05:30"), "\(clock)")
        let relative = try #require(Browser.attribute("data-relative", of: "<body", in: dom))
        #expect(relative.hasPrefix("+0.0 s|+0.5 s|+1.0 s"), "\(relative)")
    }
}
