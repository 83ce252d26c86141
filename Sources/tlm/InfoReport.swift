import Foundation
import Quantities
import Recording

/// Renders `RecordingInfo` as the aligned text `tlm info` prints.
struct InfoReport {
    let info: RecordingInfo
    /// How times print (UTC unless `--local-time` or `TZ`).
    let times: TimeDisplay

    init(_ info: RecordingInfo, times: TimeDisplay = .utc) {
        self.info = info
        self.times = times
    }

    var text: String {
        var out = ""
        let session = info.session
        var source = session.source
        if let seed = session.seed { source += ", seed \(seed)" }
        out += line("Recording", info.directory)
        // Text from the recording is escaped: a name can carry terminal control sequences.
        let sessionText = "\(session.name) (\(source)) on \(session.host), \(session.library)"
        out += line("Session", TerminalText.escaped(sessionText))
        out += line("Started", times.timestamp(session.startedAt))
        out += line("Ended", ended)
        out += line("Devices", "\(info.devices.count)")
        for device in info.devices {
            out += TerminalText.escaped("  \(device.family)  \(device.identifier)  \(device.name)") + "\n"
        }
        out += line("Streams", "\(info.streams.count), \(Self.grouped(info.messageCount)) messages")
        // Topics, schemas and units come from the index, whose text a file's writer chose: escaped too.
        let topics = info.streams.map { TerminalText.escaped($0.topic) }
        let schemas = info.streams.map { TerminalText.escaped($0.schema) }
        let units = info.streams.map { TerminalText.escaped($0.unit ?? "-") }
        let topicWidth = max(5, topics.map(\.count).max() ?? 0)
        let schemaWidth = max(6, schemas.map(\.count).max() ?? 0)
        let unitWidth = max(4, units.map(\.count).max() ?? 0)
        out +=
            "  " + Columns.pad("TOPIC", topicWidth) + "  " + Columns.pad("SCHEMA", schemaWidth)
            + "  " + Columns.pad("MESSAGES", 9, alignRight: true) + "  " + Columns.pad("RATE", 10, alignRight: true)
            + "  " + Columns.pad("UNIT", unitWidth)
            + "  FIRST .. LAST\n"
        for (number, stream) in info.streams.enumerated() {
            var rate = "-"
            var range = "-"
            if let first = stream.firstTime, let last = stream.lastTime {
                range = times.clock(first) + " .. " + times.clock(last)
            }
            if let hertz = stream.rate { rate = String(format: "%.1f Hz", hertz) }
            out +=
                "  " + Columns.pad(topics[number], topicWidth) + "  " + Columns.pad(schemas[number], schemaWidth)
                + "  " + Columns.pad(Self.grouped(stream.messageCount), 9, alignRight: true) + "  "
                + Columns.pad(rate, 10, alignRight: true)
                + "  " + Columns.pad(units[number], unitWidth) + "  " + range + (stream.latched ? "  latched" : "")
                + "\n"
        }
        out += clocks
        out += line(
            "Segments",
            "\(info.segments.count) (\(info.closedSegmentCount) closed), \(Self.bytes(info.byteSize)) on disk, "
                + "\(Self.bytes(info.uncompressedSize)) uncompressed")
        for segment in info.segments {
            out +=
                "  " + TerminalText.escaped("\(segment.path)  \(segment.state)") + "  \(Self.bytes(segment.byteSize))  "
                + "\(Self.grouped(segment.messageCount)) messages  \(segment.chunkCount) chunks\n"
        }
        let compressions =
            info.chunkCompressions.isEmpty
            ? "none" : TerminalText.escaped(info.chunkCompressions.joined(separator: ", "))
        out += line("Compression", String(format: "%.2f : 1", info.compressionRatio) + " (\(compressions))")
        if info.losses.isEmpty {
            out += line("Loss", "none")
        } else {
            let gaps = info.gapSeconds > 0 ? String(format: " and %.3f s of gaps", info.gapSeconds) : ""
            out += line("Loss", "\(Self.grouped(info.lossCount)) elements\(gaps) in \(info.losses.count) records")
            for loss in info.losses.prefix(20) {
                let gap = loss.durationNanoseconds.map { "  gap " + Self.seconds($0) } ?? ""
                out +=
                    "  \(times.clock(loss.time))  \(TerminalText.escaped(loss.topic ?? "(session)"))  \(loss.count)\(gap)  "
                    + TerminalText.escaped(loss.reason) + "\n"
            }
            if info.losses.count > 20 {
                out += "  … \(info.losses.count - 20) more (tlm info --format json lists all)\n"
            }
        }
        return out
    }

    /// The end of the session: its time and length; "no messages" for a
    /// recording without any (whose recovered end, the last chunk's, is
    /// no time at all); "not closed" while it records or after a crash.
    private var ended: String {
        let session = info.session
        let empty = info.messageCount == 0 && info.segments.allSatisfy { $0.chunkCount == 0 }
        guard let ended = session.endedAt else {
            return "not closed (recording, or interrupted)" + (empty ? ", no messages" : "")
        }
        guard ended > session.startedAt || !empty else {
            // A recovered session's end is its last message's, never before its start: none without messages.
            return "no messages"
        }
        guard ended >= session.startedAt else {
            // Recovered by a tlm before the end was held at the start: a replay's may precede it.
            return "\(times.timestamp(ended))  (before the start)"
        }
        return "\(times.timestamp(ended))  (\(Self.seconds(ended - session.startedAt)))"
            + (empty ? ", no messages" : "")
    }

    /// The device clocks' latest models (drift, jitter, fit, epoch), one
    /// line each; nothing for a recording without clock streams.
    private var clocks: String {
        guard let clocks = info.clocks, !clocks.isEmpty else { return "" }
        var out = line("Clocks", "\(clocks.count) (latest model of each; docs/time.md)")
        let topicWidth = clocks.map(\.topic.count).max() ?? 0
        out +=
            "  " + Columns.pad("TOPIC", topicWidth) + "  " + Columns.pad("KIND", 12) + "  "
            + Columns.pad("DRIFT", 13, alignRight: true) + "  " + Columns.pad("JITTER", 10, alignRight: true) + "  "
            + Columns.pad("FIT", 6, alignRight: true) + "  " + Columns.pad("EPOCH", 5, alignRight: true)
            + "  UPDATES\n"
        for clock in clocks {
            out +=
                "  " + Columns.pad(clock.topic, topicWidth) + "  " + Columns.pad(clock.kind, 12) + "  "
                + Columns.pad(String(format: "%+.2f ppm", clock.driftPPM), 13, alignRight: true) + "  "
                + Columns.pad(String(format: "%.3f ms", clock.jitterNanoseconds / 1e6), 10, alignRight: true) + "  "
                + Columns.pad(String(clock.fitSize), 6, alignRight: true) + "  "
                + Columns.pad(String(clock.epoch), 5, alignRight: true) + "  " + Self.grouped(clock.updates) + "\n"
        }
        for clock in clocks where clock.isAtDriftBound {
            out +=
                "  \(clock.topic): the drift sits at its bound (±\(Int(RecordingInfo.Clock.driftBoundPPM)) ppm): "
                + "its nominal rate (\(String(format: "%.10g", clock.nominalRate)) per second) is likely wrong (docs/time.md)\n"
        }
        return out
    }

    private func line(_ label: String, _ value: String) -> String {
        Columns.pad(label, 12) + value + "\n"
    }

    /// An instant in ISO 8601 UTC (``TimeDisplay/utc``); verbs that print
    /// times use their ``OutputOptions/times`` instead.
    static func timestamp(_ nanoseconds: UInt64) -> String { TimeDisplay.utc.timestamp(nanoseconds) }

    static func seconds(_ nanoseconds: UInt64) -> String {
        String(format: "%.3f s", Double(nanoseconds) / 1e9)
    }

    static func grouped(_ value: Int) -> String {
        let digits = String(value)
        var out = ""
        for (offset, character) in digits.enumerated() {
            if offset > 0, (digits.count - offset) % 3 == 0 { out.append(",") }
            out.append(character)
        }
        return out
    }

    static func bytes(_ count: UInt64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(count)
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(count) B" : String(format: "%.1f", value) + " " + units[unit]
    }
}
