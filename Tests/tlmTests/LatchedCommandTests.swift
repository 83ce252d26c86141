import Foundation
import Recording
import TestSupport
import Testing

/// Values a device sends once or on change (device information, firmware,
/// settings, feature status, an odometer) are latched: a slice from later
/// begins with each one's last message before its start, unless
/// `--no-latched`.
@Suite struct LatchedCommandTests {
    /// Topics of state sent once or on change, by their stream names.
    static func isStateTopic(_ topic: String) -> Bool {
        ["device_information", "firmware_version", "feature_status", "features", "odometer"].contains {
            topic.hasSuffix("/" + $0)
        }
    }

    /// The JSON lines of `tlm cat` output.
    static func lines(_ output: String) -> [[String: Any]] {
        output.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
    }

    @Test func catFilterAndExportFromLaterBeginWithTheLatchedTopics() throws {
        let recording = temporaryPath()
        let record = try tlm("record", "--simulate", "--duration", "4s", "--seed", "5", "--output", recording)
        #expect(record.status == 0, "\(record.errors)")
        let info = try RecordingInfo.load(from: recording)
        let first = try #require(info.streams.compactMap(\.firstTime).min())
        let from = first + 2_000_000_000
        // The state streams sent before the start: at the start of the recording, once.
        let before = Set(
            info.streams.filter { Self.isStateTopic($0.topic) && ($0.firstTime ?? .max) < from }.map(\.topic))
        #expect(before.count >= 4, "\(info.streams.map(\.topic))")

        let cat = try tlm("cat", recording, "--from", "+2s", "--time", "receive")
        #expect(cat.status == 0, "\(cat.errors)")
        let lines = Self.lines(cat.output)
        let early = lines.filter { ($0["log_time"] as? UInt64 ?? .max) < from }
        let earlyTopics = Set(early.compactMap { $0["topic"] as? String })
        #expect(before.isSubset(of: earlyTopics), "missing: \(before.subtracting(earlyTopics).sorted())")
        // One message per latched topic, all before the slice's own, in log-time order.
        #expect(early.count == earlyTopics.count)
        let times = lines.compactMap { $0["log_time"] as? UInt64 }
        #expect(times.count == lines.count && times == times.sorted())
        #expect(lines.prefix(early.count).allSatisfy { ($0["log_time"] as? UInt64 ?? .max) < from })
        // No periodic sample is carried over.
        #expect(!earlyTopics.contains { $0.hasSuffix("/acc_x") || $0.contains("/raw/") })

        // Following the recording begins the same way.
        let followed = try tlm("cat", recording, "--from", "+2s", "--time", "receive", "--follow")
        #expect(followed.status == 0, "\(followed.errors)")
        let followedEarly = Self.lines(followed.output).prefix { ($0["log_time"] as? UInt64 ?? .max) < from }
        #expect(Set(followedEarly.compactMap { $0["topic"] as? String }) == earlyTopics)
        #expect(Self.lines(followed.output).count == lines.count)
        let followedOff = try tlm("cat", recording, "--from", "+2s", "--time", "receive", "--follow", "--no-latched")
        #expect(Self.lines(followedOff.output).allSatisfy { ($0["log_time"] as? UInt64 ?? 0) >= from })

        let off = try tlm("cat", recording, "--from", "+2s", "--time", "receive", "--no-latched")
        #expect(off.status == 0, "\(off.errors)")
        let offLines = Self.lines(off.output)
        #expect(offLines.allSatisfy { ($0["log_time"] as? UInt64 ?? 0) >= from })
        #expect(offLines.count == lines.count - early.count)

        // Sample time (the default) and the other verbs: the same topics come first.
        let sampled = Self.lines(try tlm("cat", recording, "--from", "+2s").output)
        #expect(before.isSubset(of: Set(sampled.prefix(early.count + 8).compactMap { $0["topic"] as? String })))

        let sliced = temporaryPath() + ".mcap"
        let filter = try tlm("filter", recording, "--from", "+2s", "--time", "receive", "--output", sliced)
        #expect(filter.status == 0, "\(filter.errors)")
        let fromFile = Self.lines(try tlm("cat", sliced, "--time", "receive").output)
        #expect(fromFile.count == lines.count)
        #expect(before.isSubset(of: Set(fromFile.prefix(early.count).compactMap { $0["topic"] as? String })))

        let csv = temporaryPath()
        let export = try tlm(
            "export", recording, "--format", "csv", "--from", "+2s", "--time", "receive", "--output", csv)
        #expect(export.status == 0, "\(export.errors)")
        let files = try FileManager.default.contentsOfDirectory(atPath: csv)
        for topic in before {
            let name = topic.split(separator: "/").joined(separator: ".") + ".csv"
            #expect(files.contains(name), "\(name) not in \(files.sorted())")
        }
        let exportOff = try tlm(
            "export", recording, "--format", "csv", "--from", "+2s", "--time", "receive", "--no-latched", "--output",
            temporaryPath() + "-off")
        #expect(exportOff.status == 0, "\(exportOff.errors)")
        #expect(exportOff.output.contains("Exported \(offLines.count) messages"), "\(exportOff.output)")
        #expect(export.output.contains("Exported \(lines.count) messages"), "\(export.output)")

        let query = try tlm(
            "query", recording, "--topic", "/**", "--from", "+2s", "--time", "receive", "--format", "jsonl")
        #expect(query.status == 0, "\(query.errors)")
        #expect(Self.lines(query.output).count == lines.count)
    }

    @Test func infoNamesTheLatchedStreams() throws {
        let recording = temporaryPath()
        #expect(try tlm("record", "--simulate", "--duration", "1s", "--seed", "5", "-o", recording).status == 0)
        let json = try tlm("info", recording, "--format", "json")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        let streams = try #require(object["streams"] as? [[String: Any]])
        let latched = Set(streams.filter { $0["latched"] as? Bool == true }.compactMap { $0["topic"] as? String })
        #expect(latched.contains { $0.hasSuffix("/device_information") }, "\(latched)")
        #expect(!latched.contains { $0.hasSuffix("/acc_x") || $0.contains("/raw/") || $0.hasSuffix("/gesture") })
        let table = try tlm("info", recording)
        for line in table.output.split(separator: "\n") where line.contains("/diot/") {
            let topic = String(line.split(separator: " ").first ?? "")
            #expect(line.hasSuffix("  latched") == latched.contains(topic), "\(line)")
        }
    }

    @Test func replayFromLaterBeginsWithTheLatchedTopics() throws {
        let recording = temporaryPath()
        let record = try tlm("record", "--simulate", "--duration", "4s", "--seed", "6", "--output", recording)
        #expect(record.status == 0, "\(record.errors)")
        let info = try RecordingInfo.load(from: recording)
        let first = try #require(info.streams.compactMap(\.firstTime).min())
        let from = first + 2_000_000_000
        let before = Set(
            info.streams.filter { Self.isStateTopic($0.topic) && ($0.firstTime ?? .max) < from }.map(\.topic))
        #expect(before.count >= 4, "\(info.streams.map(\.topic))")

        let replayed = temporaryPath()
        let replay = try tlm("replay", recording, "--from", "+2s", "--output", replayed)
        #expect([0, 3].contains(replay.status), "\(replay.errors)")
        let lines = Self.lines(try tlm("cat", replayed, "--time", "receive").output)
        let early = lines.filter { ($0["log_time"] as? UInt64 ?? .max) < from }
        let earlyTopics = Set(early.compactMap { $0["topic"] as? String })
        #expect(before.isSubset(of: earlyTopics), "missing: \(before.subtracting(earlyTopics).sorted())")
        #expect(early.count == earlyTopics.count)
        // The same messages as the original's last before the start.
        let original = Self.lines(try tlm("cat", recording, "--time", "receive").output)
        for line in early {
            let topic = line["topic"] as? String
            let last = original.last { $0["topic"] as? String == topic && ($0["log_time"] as? UInt64 ?? .max) < from }
            #expect(last?["log_time"] as? UInt64 == line["log_time"] as? UInt64, "\(topic ?? "")")
        }

        let without = temporaryPath()
        let off = try tlm("replay", recording, "--from", "+2s", "--no-latched", "--output", without)
        #expect([0, 3].contains(off.status), "\(off.errors)")
        let offLines = Self.lines(try tlm("cat", without, "--time", "receive").output)
        #expect(offLines.allSatisfy { ($0["log_time"] as? UInt64 ?? 0) >= from })
    }
}
