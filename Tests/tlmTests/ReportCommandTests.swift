import Foundation
import ROS2
import Recording
import RecordingQueries
import TestSupport
import Testing

/// The report's embedded data, as far as the tests read it.
struct EmbeddedData: Decodable {
    struct Group: Decodable {
        var name: String
        var device: String
        var lanes: [Lane]
    }
    struct Lane: Decodable {
        var kind: String
        var topic: String
        var min: Double?
        var max: Double?
        var date: Bool?
    }
    var groups: [Group]
}

@Suite struct ReportCommandTests {
    /// A simulated recording of all five families with faults (loss records), shared read-only.
    static let recording: String = {
        let output = temporaryPath("reportfaults")
        let result = try! tlm(
            "record", "--simulate", "--scenario", "faults", "--duration", "4s", "--seed", "11", "--output", output)
        precondition(result.status == 3, "faults record loss (exit 3): \(result.status) \(result.errors)")
        return output
    }()

    /// Each numeric stream's minimum and maximum, from the reader's aggregates (one bucket over the recording).
    static func readerExtremes() throws -> [String: (Double, Double)] {
        let info = try RecordingInfo.load(from: recording)
        let reader = try RecordingReader(directory: recording)
        let from = info.streams.compactMap(\.firstTime).min()!
        let to = info.streams.compactMap(\.lastTime).max()! + 1
        var result: [String: (Double, Double)] = [:]
        for stream in info.streams where stream.kind != "raw" {
            guard
                let (buckets, _) = try? reader.aggregate(
                    topic: stream.topic, from: from, to: to, every: .nanoseconds(Int64(to - from))),
                let bucket = buckets.first, let low = bucket.minimum, let high = bucket.maximum
            else { continue }
            result[stream.topic] = (low, high)
        }
        // A typed stream's vector components (the Jacquard IMU's six axes) are one lane: the extremes of all.
        for stream in info.streams where stream.topic.hasSuffix("/imu") && stream.kind == "typed" {
            var low = Double.infinity
            var high = -Double.infinity
            try reader.forEachTypedMessage(topics: [stream.topic]) { message in
                for field in message.fields where field.name.hasPrefix("accel_") || field.name.hasPrefix("gyro_") {
                    guard let value = field.value.number else { continue }
                    low = min(low, value)
                    high = max(high, value)
                }
            }
            if low <= high { result[stream.topic] = (low, high) }
        }
        return result
    }

    /// Every opening tag of `html`: its name and attributes.
    static func tags(_ html: String) -> [(name: String, attributes: [String: String])] {
        html.components(separatedBy: "<").dropFirst().map { tag in
            let head = tag.prefix { $0 != ">" }
            var attributes: [String: String] = [:]
            for match in head.matches(of: /([a-z-]+)="([^"]*)"/) { attributes[String(match.1)] = String(match.2) }
            return (String(head.prefix { $0 != " " && $0 != "/" }), attributes)
        }
    }

    /// The attributes of every opening tag of `html` whose class is `className`.
    static func elements(_ html: String, class className: String) -> [[String: String]] {
        tags(html).filter { $0.attributes["class"] == className }.map(\.attributes)
    }

    @Test func noEventMarkIsTitledWithItsSampleTime() throws {
        let output = temporaryPath() + ".html"
        let result = try tlm("report", Self.recording, "--output", output)
        #expect(result.status == 0, "\(result.errors)")
        let html = try String(contentsOfFile: output, encoding: .utf8)
        let json = try #require(
            html.components(separatedBy: "<script type=\"application/json\" id=\"report-data\">").last?
                .components(separatedBy: "</script>").first)
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let lanes = (parsed["groups"] as? [[String: Any]] ?? []).flatMap { $0["lanes"] as? [[String: Any]] ?? [] }
        // A mark is [time, title, label]; a stamped message's label begins with its stamp in nanoseconds.
        var stamped = 0
        for lane in lanes {
            for mark in lane["marks"] as? [[Any]] ?? [] {
                guard mark.count >= 3, let title = mark[1] as? String, let label = mark[2] as? String,
                    label.hasPrefix("stamp=")
                else { continue }
                stamped += 1
                let stamp = String(label.dropFirst(6).prefix { $0.isNumber })
                #expect(!stamp.isEmpty && title != String(stamp.prefix(40)), "\(lane["topic"] ?? ""): \(label)")
            }
        }
        #expect(stamped > 0)
    }

    @Test func theReportCarriesTheReadersMinimumAndMaximumOfEveryNumericStream() throws {
        let output = temporaryPath() + ".html"
        let result = try tlm("report", Self.recording, "--output", output)
        #expect(result.status == 0, "\(result.errors)")
        let html = try String(contentsOfFile: output, encoding: .utf8)
        let json = try #require(
            html.components(separatedBy: "<script type=\"application/json\" id=\"report-data\">").last?
                .components(separatedBy: "</script>").first)
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        // JSONDecoder for the numbers: Foundation's JSONSerialization rounds some doubles on Linux.
        let lanes = try JSONDecoder().decode(EmbeddedData.self, from: Data(json.utf8)).groups.flatMap(\.lanes)
        let numeric = Dictionary(
            uniqueKeysWithValues: lanes.filter { $0.kind == "numeric" }.map { ($0.topic, ($0.min, $0.max)) })
        let expected = try Self.readerExtremes()
        #expect(Set(numeric.keys) == Set(expected.keys))
        // Every device's group is headed by its name and family; the DIoT's current_date is drawn as dates.
        let groups = try JSONDecoder().decode(EmbeddedData.self, from: Data(json.utf8)).groups
        let info = try RecordingInfo.load(from: Self.recording)
        for device in info.devices {
            let group = try #require(groups.first { $0.name.hasPrefix("/\(device.family)/") }, "\(device.family)")
            #expect(group.device == "\(device.name) (\(device.family))", "\(group.name)")
        }
        #expect(lanes.filter { $0.date == true }.map { $0.topic.split(separator: "/").last } == ["current_date"])
        #expect(expected.count >= 10)
        for (topic, (low, high)) in expected {
            #expect(numeric[topic]?.0 == low && numeric[topic]?.1 == high, "\(topic)")
        }
        // Events of every family with any: gestures, grip events, feature status, state changes.
        let events = Set(lanes.filter { $0.kind == "events" }.map(\.topic))
        for suffix in ["/gesture", "/grip", "/feature_status", "/lights"] {
            #expect(events.contains { $0.hasSuffix(suffix) }, "\(suffix)")
        }
        #expect(!info.losses.isEmpty)
        #expect((parsed["losses"] as? [[Any]])?.map { $0[5] as? String } == info.losses.map { String($0.time) })
    }

    @Test func aHeadlessBrowserDrawsEveryPlotWithNoErrorAndLossAtItsTimes() throws {
        let chromium = "/usr/bin/chromium"
        try #require(
            FileManager.default.isExecutableFile(atPath: chromium),
            "Debian's chromium is needed (make setup installs it)")
        let output = temporaryPath() + ".html"
        let result = try tlm("report", Self.recording, "--output", output)
        #expect(result.status == 0, "\(result.errors)")
        let profile = temporaryPath("chromiumprofile")
        defer { try? FileManager.default.removeItem(atPath: profile) }
        let common = [
            "--headless", "--disable-gpu", "--no-sandbox", "--user-data-dir=\(profile)", "--hide-scrollbars",
            "--window-size=1400,2000",
        ]
        let dump = try finish(
            try start(chromium, common + ["--dump-dom", "file://" + output]), timeout: .seconds(90))
        #expect(dump.status == 0, "\(dump.errors)")
        let dom = dump.output
        #expect(dom.contains("<body data-from=") && dom.contains("data-ready=\"1\""), "the script did not finish")
        #expect(dom.contains("<pre id=\"console-errors\"></pre>"), "console errors: \(dom.prefix(2000))")

        let body = try #require(Self.tags(dom).first { $0.name == "body" }?.attributes)
        let from = try #require(UInt64(body["data-from"] ?? ""))
        let to = try #require(UInt64(body["data-to"] ?? ""))
        let info = try RecordingInfo.load(from: Self.recording)
        #expect(from == info.streams.compactMap(\.firstTime).min())

        // Each numeric stream's lane, drawn, with the reader's minimum and maximum on its axis.
        let lanes = Self.elements(dom, class: "lane numeric")
        let expected = try Self.readerExtremes()
        #expect(lanes.count == expected.count)
        for lane in lanes {
            let topic = try #require(lane["data-topic"])
            let (low, high) = try #require(expected[topic], "\(topic)")
            #expect(Double(lane["data-axis-min"] ?? "") == low, "\(topic)")
            #expect(Double(lane["data-axis-max"] ?? "") == high, "\(topic)")
            #expect(Int(lane["data-drawn"] ?? "") ?? 0 > 0, "\(topic) drew nothing")
            if topic.hasSuffix("/current_date") {
                // Dates, not 1.7e9.
                let ticks = try #require(lane["data-y-ticks"])
                #expect(ticks.hasPrefix("20") && ticks.contains("-") && !ticks.contains("e+"), "\(ticks)")
            }
        }

        // A loss mark per loss record, at its time on the shared axis.
        let strip = try #require(Self.tags(dom).first { $0.attributes["id"] == "loss-strip" }?.attributes)
        let width = try #require(Double(strip["data-width"] ?? ""))
        #expect(width > 800)
        let marks = Self.elements(dom, class: "loss-mark")
        #expect(marks.compactMap { $0["data-time"] } == info.losses.map { String($0.time) })
        for mark in marks {
            let time = try #require(UInt64(mark["data-time"] ?? ""))
            let x = try #require(Double(mark["data-x"] ?? ""))
            #expect(abs(x - Double(time - from) / Double(to - from) * width) < 0.02, "\(time)")
        }

        // The screenshot, kept as an artifact.
        let artifacts = repositoryRoot + "/.build/artifacts"
        try FileManager.default.createDirectory(atPath: artifacts, withIntermediateDirectories: true)
        let screenshot = artifacts + "/report-screenshot.png"
        try? FileManager.default.removeItem(atPath: screenshot)
        let shot = try finish(
            try start(chromium, common + ["--screenshot=\(screenshot)", "file://" + output]), timeout: .seconds(90))
        #expect(shot.status == 0, "\(shot.errors)")
        let png = try Data(contentsOf: URL(fileURLWithPath: screenshot))
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]) && png.count > 20_000)
    }

    @Test func aPlotIsAnSVGOfTheSelectedStreams() throws {
        let output = temporaryPath() + ".svg"
        let result = try tlm("plot", Self.recording, "--topic", "/diot/*/acc_?", "--output", output, "--width", "900")
        #expect(result.status == 0, "\(result.errors)")
        let svg = try String(contentsOfFile: output, encoding: .utf8)
        #expect(svg.contains("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"900\""))
        let groups = Self.elements(svg, class: "numeric")
        let expected = try Self.readerExtremes().filter {
            $0.key.range(of: #"/acc_[xyz]$"#, options: .regularExpression) != nil
        }
        #expect(groups.count == 3 && expected.count == 3)
        for group in groups {
            let topic = try #require(group["data-topic"])
            #expect(Double(group["data-min"] ?? "") == expected[topic]?.0)
            #expect(Double(group["data-max"] ?? "") == expected[topic]?.1)
        }
    }

    @Test func aPlotOfFieldsDrawsThoseFieldsOfTheTypedStream() throws {
        // The IMU's six axes by default, in one lane with a legend.
        var output = temporaryPath() + ".svg"
        var result = try tlm("plot", Self.recording, "--topic", "/jacquard/*/imu", "--output", output)
        #expect(result.status == 0 && result.output.contains("1 plot(s), 0 event stream(s)"), "\(result.errors)")
        var svg = try String(contentsOfFile: output, encoding: .utf8)
        #expect(svg.contains("data-series=\"6\"") && svg.components(separatedBy: "<g class=\"key\">").count == 7)
        // --field, and TOPIC.FIELD, choose the fields.
        output = temporaryPath() + ".svg"
        result = try tlm(
            "plot", Self.recording, "--topic", "/jacquard/*/imu", "--field", "accel_x,gyro_z", "--output", output)
        #expect(result.status == 0, "\(result.errors)")
        svg = try String(contentsOfFile: output, encoding: .utf8)
        #expect(svg.contains("data-series=\"2\"") && svg.contains(">accel_x</text>") && svg.contains(">gyro_z</text>"))
        output = temporaryPath() + ".svg"
        result = try tlm("plot", Self.recording, "--topic", "/jacquard/*/imu.gyro_y", "--output", output)
        #expect(result.status == 0, "\(result.errors)")
        svg = try String(contentsOfFile: output, encoding: .utf8)
        #expect(svg.contains("data-series=\"1\"") && svg.contains(">gyro_y</text>"))
        // A field no selected stream has: an error naming the fields there are, and no file.
        output = temporaryPath() + ".svg"
        result = try tlm("plot", Self.recording, "--topic", "/jacquard/*/imu", "--field", "accel_w", "--output", output)
        #expect(result.status == 1 && result.errors.contains("no selected stream has a numeric field accel_w"))
        #expect(result.errors.contains("accel_x, accel_y, accel_z, gyro_x"), "\(result.errors)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test func anXYPlotDrawsOneFieldAgainstAnother() throws {
        let output = temporaryPath() + ".svg"
        var result = try tlm(
            "plot", Self.recording, "--topic", "/jacquard/*/imu", "--xy", "accel_x,accel_y", "--output", output)
        #expect(result.status == 0, "\(result.errors)")
        let messages = try RecordingInfo.load(from: Self.recording).streams.filter {
            $0.topic.range(of: "^/jacquard/[^/]+/imu$", options: .regularExpression) != nil
        }
        .map(\.messageCount).reduce(0, +)
        #expect(
            result.output.contains("accel_y against accel_x, \(messages) point(s) of 1 stream(s)"), "\(result.output)")
        let svg = try String(contentsOfFile: output, encoding: .utf8)
        #expect(svg.contains("<g class=\"xy\"") && svg.contains("data-count=\"\(messages)\""))
        result = try tlm("plot", Self.recording, "--xy", "accel_x", "--output", temporaryPath() + ".svg")
        #expect(result.status != 0 && result.errors.contains("--xy needs two fields"))
        result = try tlm(
            "plot", Self.recording, "--topic", "/diot/**", "--xy", "accel_x,accel_y", "--output",
            temporaryPath() + ".svg")
        #expect(result.status == 1 && result.errors.contains("no selected stream has"), "\(result.errors)")
    }

    @Test func aPNGPlotIsAPNGOfTheRequestedWidth() throws {
        let output = temporaryPath() + ".png"
        let result = try tlm("plot", Self.recording, "--topic", "/diot/*/acc_?", "--output", output, "--width", "1000")
        #expect(result.status == 0, "\(result.errors)")
        let png = [UInt8](try Data(contentsOf: URL(fileURLWithPath: output)))
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        // IHDR: width and height, big-endian, after the signature, the chunk length and type.
        #expect(Array(png[12..<16]) == Array("IHDR".utf8))
        #expect(png[16..<20].reduce(0) { $0 << 8 | Int($1) } == 1000)
        #expect(png[20..<24].reduce(0) { $0 << 8 | Int($1) } > 3 * 84)
    }

    @Test func badInputIsAClearErrorAndWritesNothing() throws {
        let output = temporaryPath() + ".html"
        var result = try tlm("report", Self.recording, "--topic", "/nothing/*", "--output", output)
        #expect(result.status == 1)
        #expect(result.errors.contains("no topic of") && result.errors.contains("/nothing/*"))
        #expect(!FileManager.default.fileExists(atPath: output))

        result = try tlm("plot", Self.recording, "--topic", "/diot/*/acc_x", "--output", temporaryPath() + ".gif")
        #expect(result.status == 1 && result.errors.contains("--output must end in .svg or .png"))

        result = try tlm("plot", Self.recording, "--topic", "**/raw/**", "--output", temporaryPath() + ".svg")
        #expect(result.status == 1 && result.errors.contains("nothing to plot"), "\(result.errors)")

        result = try tlm("report", Self.recording, "--from", "+2s", "--to", "+1s", "--output", output)
        #expect(result.status == 1 && result.errors.contains("range is empty"))

        result = try tlm("report", "/nonexistent/recording", "--output", output)
        #expect(result.status == 1 && result.errors.contains("/nonexistent/recording"))

        let existing = temporaryPath() + ".html"
        #expect(FileManager.default.createFile(atPath: existing, contents: Data("keep".utf8)))
        result = try tlm("report", Self.recording, "--output", existing)
        #expect(result.status == 1 && result.errors.contains("already exists"))
        #expect(try String(contentsOfFile: existing, encoding: .utf8) == "keep")
    }

    @Test func aReportWithoutNumericStreamsOrOfAnEmptyRecordingSaysSo() throws {
        let output = temporaryPath() + ".html"
        var result = try tlm("report", Self.recording, "--topic", "/jacquard/*/gesture", "--output", output)
        #expect(result.status == 0, "\(result.errors)")
        var html = try String(contentsOfFile: output, encoding: .utf8)
        #expect(html.contains("No numeric stream among the selected topics."))
        #expect(html.contains("\"kind\":\"events\"") && !html.contains("\"kind\":\"numeric\""))

        let empty = temporaryPath("emptyrecording")
        let recorder = try Recorder(directory: empty, session: .init(name: "empty", source: "simulate"))
        try recorder.close()
        let emptyOutput = temporaryPath() + ".html"
        result = try tlm("report", empty, "--output", emptyOutput)
        #expect(result.status == 0, "\(result.errors)")
        html = try String(contentsOfFile: emptyOutput, encoding: .utf8)
        #expect(html.contains("No numeric or event stream has data in this range."))
        result = try tlm("plot", empty, "--output", temporaryPath() + ".svg")
        #expect(result.status == 1 && result.errors.contains("nothing to plot"))
    }
}
