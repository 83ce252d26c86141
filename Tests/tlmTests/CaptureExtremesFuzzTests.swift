import Foundation
import TestSupport
import Testing

/// Issue 36's fuzzing of capture files with extreme times and counts: the
/// tour's btsnoop capture, rewritten as btsnoop, pcap or pcapng with
/// timestamps near the 32- and 64-bit limits, times that go backwards,
/// `if_tsoffset` and `if_tsresol` past what a nanosecond count holds, huge
/// drop counts, and thousands of advertisers and connection handles, run
/// through `tlm import`, then `verify`, `info` and `cat`. A run is a silent
/// wrong answer when the import succeeds but `verify` finds a problem, or
/// `info`'s message count is not the number of lines `cat` prints. Every
/// third run also gives a segment of the import a chunk of an unknown
/// compression and reads it as a lone file: `info` must then say that chunks
/// were not read, or agree with `cat`.
@Suite struct CaptureExtremesFuzzTests {
    /// One packet of the capture: its H4 bytes (type first), direction, and
    /// the raw timestamp and cumulative drop fields as the format writes them.
    struct Packet {
        var bytes: [UInt8]
        var received: Bool
        /// Microseconds since the Unix epoch as read, or a raw field value once mutated.
        var time: UInt64
        var rawTime = false
        var drops: UInt64 = 0
    }

    enum Format: CaseIterable { case btsnoop, pcap, pcapNanoseconds, pcapng }

    /// The pcapng interface's options: `if_tsresol` and `if_tsoffset`.
    struct Interface {
        var resolution: UInt8?
        var offset: Int64?
    }

    static let btsnoopEpoch: UInt64 = 0x00DC_DDB3_0F2F_8000

    /// The tour's capture (btsnoop, datalink 1002) as packets.
    static let packets: [Packet] = {
        let data = [UInt8](FileManager.default.contents(atPath: ImportCommandTests.capture) ?? Data())
        var packets: [Packet] = []
        var at = 16
        func be32(_ at: Int) -> UInt64 { data[at..<(at + 4)].reduce(0) { $0 << 8 | UInt64($1) } }
        while at + 24 <= data.count {
            let included = Int(be32(at + 4))
            let flags = be32(at + 8)
            let stamp = be32(at + 16) << 32 | be32(at + 20)
            packets.append(
                Packet(
                    bytes: Array(data[(at + 24)..<(at + 24 + included)]), received: flags & 1 == 1,
                    time: stamp &- btsnoopEpoch))
            at += 24 + included
        }
        precondition(packets.count == 1830, "the tour capture has \(packets.count) packets")
        return packets
    }()

    static func be32(_ value: UInt64) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
    static func le16(_ value: UInt64) -> [UInt8] { [0, 8].map { UInt8(truncatingIfNeeded: value >> $0) } }
    static func le32(_ value: UInt64) -> [UInt8] { [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: value >> $0) } }
    static func le64(_ value: UInt64) -> [UInt8] { le32(value) + le32(value >> 32) }

    /// The capture file of `packets` in `format`.
    static func write(_ packets: [Packet], _ format: Format, interface: Interface) -> [UInt8] {
        switch format {
        case .btsnoop:
            var out = Array("btsnoop\0".utf8) + be32(1) + be32(1002)
            for packet in packets {
                let stamp = packet.rawTime ? packet.time : packet.time &+ btsnoopEpoch
                let flags: UInt64 = (packet.received ? 1 : 0) | (packet.bytes.first == 2 ? 0 : 2)
                out += be32(UInt64(packet.bytes.count)) + be32(UInt64(packet.bytes.count)) + be32(flags)
                out += be32(packet.drops) + be32(stamp >> 32) + be32(stamp) + packet.bytes
            }
            return out
        case .pcap, .pcapNanoseconds:
            let nanoseconds = format == .pcapNanoseconds
            var out = le32(nanoseconds ? 0xA1B2_3C4D : 0xA1B2_C3D4) + le16(2) + le16(4) + le32(0) + le32(0)
            out += le32(65535) + le32(201)
            for packet in packets {
                let payload = be32(packet.received ? 1 : 0) + packet.bytes
                let (seconds, fraction) =
                    packet.rawTime
                    ? (packet.time >> 32, packet.time & 0xFFFF_FFFF)
                    : (packet.time / 1_000_000, packet.time % 1_000_000 * (nanoseconds ? 1000 : 1))
                out += le32(seconds) + le32(fraction) + le32(UInt64(payload.count)) + le32(UInt64(payload.count))
                out += payload
            }
            return out
        case .pcapng:
            func block(_ type: UInt64, _ body: [UInt8]) -> [UInt8] {
                let padded = body + Array(repeating: 0, count: (4 - body.count % 4) % 4)
                return le32(type) + le32(UInt64(padded.count + 12)) + padded + le32(UInt64(padded.count + 12))
            }
            var out = block(0x0A0D_0D0A, le32(0x1A2B_3C4D) + le16(1) + le16(0) + Array(repeating: 0xFF, count: 8))
            var options: [UInt8] = []
            if let resolution = interface.resolution { options += le16(9) + le16(1) + [resolution, 0, 0, 0] }
            if let offset = interface.offset { options += le16(14) + le16(8) + le64(UInt64(bitPattern: offset)) }
            if !options.isEmpty { options += [0, 0, 0, 0] }
            out += block(1, le16(201) + le16(0) + le32(0) + options)
            var dropped: UInt64 = 0
            for packet in packets {
                let payload = be32(packet.received ? 1 : 0) + packet.bytes
                var body = le32(0) + le32(packet.time >> 32) + le32(packet.time) + le32(UInt64(payload.count))
                body += le32(UInt64(payload.count)) + payload
                body += Array(repeating: 0, count: (4 - payload.count % 4) % 4)
                if packet.drops != dropped {
                    body += le16(4) + le16(8) + le64(packet.drops) + [0, 0, 0, 0]
                    dropped = packet.drops
                }
                out += block(6, body)
            }
            return out
        }
    }

    /// Raw timestamp fields near the limits of the formats' fields and of a signed nanosecond count.
    static let extremes: [UInt64] = [
        0, 1, .max, .max - 1, UInt64(Int64.max), UInt64(Int64.max) + 1, btsnoopEpoch - 1, 0xFFFF_FFFF,
        0xFFFF_FFFF_0000_0000, 0x0000_0001_0000_0000, UInt64(Int64.max) / 1000 + 1, UInt64(Int64.max) / 1_000_000 + 1,
    ]

    /// An LE advertising report of a new random address, or a notification on a new connection handle.
    static func extraPacket(_ index: Int, advert: Bool, time: UInt64) -> Packet {
        let address = (0..<6).map { UInt8(truncatingIfNeeded: index >> ($0 * 8)) ^ 0x5A }
        if advert {
            let data: [UInt8] = [2, 0x01, 0x06, 5, 0x09] + Array("fz\(index % 100)".utf8.prefix(4))
            let report: [UInt8] = [0x02, 1, 0x00, 0x01] + address + [UInt8(data.count)] + data + [0xC4]
            return Packet(bytes: [0x04, 0x3E, UInt8(report.count)] + report, received: true, time: time)
        }
        let handle = UInt64(index % 0xEFF)
        let att: [UInt8] = [0x1B] + le16(UInt64(index % 0xFFFF) + 1) + [1, 2, 3, 4]
        let l2cap = le16(UInt64(att.count)) + le16(4) + att
        return Packet(
            bytes: [0x02] + le16(handle | 0x2000) + le16(UInt64(l2cap.count)) + l2cap, received: true, time: time)
    }

    /// A mutated capture of the tour's packets: what was done, in words, and the file.
    static func mutated(_ random: inout SplitMix64) -> (String, Format, [UInt8]) {
        var packets = packets
        let format = Format.allCases.randomElement(using: &random)!
        var interface = Interface()
        var what: [String] = []
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            switch Int.random(in: 0..<5, using: &random) {
            case 0:
                let count = Int.random(in: 1...8, using: &random)
                for _ in 0..<count {
                    let at = Int.random(in: 0..<packets.count, using: &random)
                    packets[at].time = extremes.randomElement(using: &random)!
                    packets[at].rawTime = true
                }
                what.append("\(count) extreme timestamps")
            case 1:
                let start = Int.random(in: 0..<(packets.count - 1), using: &random)
                let length = Int.random(in: 1...min(200, packets.count - start), using: &random)
                let step = ([1, 1000, 1_000_000, 1 << 40] as [UInt64]).randomElement(using: &random)!
                for (offset, at) in (start..<(start + length)).enumerated() {
                    packets[at].time = packets[start].time &- UInt64(offset) &* step
                }
                what.append("times going back by \(step) over \(length) packets")
            case 2:
                let at = Int.random(in: 0..<packets.count, using: &random)
                let huge: UInt64 = [(1 << 46) + 1, .max, UInt64(Int64.max) + 1, 0xFFFF_FFFF, 1 << 32]
                    .randomElement(using: &random)!
                for index in at..<packets.count { packets[index].drops = huge }
                if Bool.random(using: &random), at + 10 < packets.count {
                    for index in (at + 10)..<packets.count { packets[index].drops = 3 }
                }
                what.append("drop count \(huge) from packet \(at)")
            case 3:
                interface.resolution = [0x80 | 63, 0xFF, 0x7F, 19, 0, 9, 0x80].randomElement(using: &random)!
                interface.offset = [Int64.max, Int64.min, -1, 1 << 40, -(1 << 40)].randomElement(using: &random)!
                what.append("if_tsresol \(interface.resolution!) if_tsoffset \(interface.offset!)")
            default:
                let count = Int.random(in: 500...3000, using: &random)
                let advert = Bool.random(using: &random)
                let time = packets[packets.count - 1].time
                packets += (0..<count).map { extraPacket($0, advert: advert, time: time) }
                what.append("\(count) \(advert ? "advertisers" : "connection handles")")
            }
        }
        return (what.joined(separator: ", "), format, write(packets, format, interface: interface))
    }

    /// The number of messages `info --format json` counts over its streams.
    static func infoMessages(_ json: String) -> Int? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
            let streams = object["streams"] as? [[String: Any]]
        else { return nil }
        return streams.reduce(0) { $0 + (($1["message_count"] as? Int) ?? 0) }
    }

    /// `segment` with some of its chunks' compression ("zstd") renamed to one tlm does not read.
    static func unknownCompression(_ segment: [UInt8], _ random: inout SplitMix64) -> [UInt8]? {
        let needle: [UInt8] = [4, 0, 0, 0] + Array("zstd".utf8)
        var bytes = segment
        var found = 0
        var at = 0
        while at + needle.count <= bytes.count {
            if bytes[at] == 4, Array(bytes[at..<(at + needle.count)]) == needle {
                if found == 0 || Bool.random(using: &random) {
                    bytes.replaceSubrange((at + 4)..<(at + 8), with: Array("lzma".utf8))
                }
                found += 1
                at += needle.count
            } else {
                at += 1
            }
        }
        return found > 0 ? bytes : nil
    }

    @Test func capturesWithExtremeTimesAndCounts() throws {
        var random = SplitMix64(seed: 0x36_CA97)
        var tally = FuzzTally("capture extremes", memoryBoundMiB: 512)
        let base = temporaryPath()
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: base) }
        for run in 0..<(5 * fuzzScale) {
            let (what, format, bytes) = Self.mutated(&random)
            let capture = base + "/c\(run).\(format == .btsnoop ? "log" : format == .pcapng ? "pcapng" : "pcap")"
            let output = base + "/r\(run)"
            try Data(bytes).write(to: URL(fileURLWithPath: capture))
            let label = "run \(run) \(format) (\(what))"
            let imported = try MeasuredRun.tlm(["import", capture, "--output", output, "-q"])
            if let outcome = tally.classify(imported, accepted: [0, 3]) {
                tally.add(outcome, "import \(label): \(FuzzTally.describe(imported))")
                continue
            }
            let verify = try MeasuredRun.tlm(["verify", output])
            if let outcome = tally.classify(verify, accepted: [0, 2]) {
                tally.add(outcome, "verify \(label): \(FuzzTally.describe(verify))")
                continue
            }
            if verify.status != 0 {
                tally.add(.silentWrong, "\(label): imported, but verify says \(verify.output.suffix(300))")
                continue
            }
            let info = try MeasuredRun.tlm(["info", output, "--format", "json"])
            if let outcome = tally.classify(info) {
                tally.add(outcome, "info \(label): \(FuzzTally.describe(info))")
                continue
            }
            let cat = try MeasuredRun.tlm(["cat", output])
            if let outcome = tally.classify(cat, accepted: [0, 3]) {
                tally.add(outcome, "cat \(label): \(FuzzTally.describe(cat))")
                continue
            }
            let lines = cat.output.split(separator: "\n").count
            guard Self.infoMessages(info.output) == lines else {
                tally.add(
                    .silentWrong, "\(label): info counts \(Self.infoMessages(info.output) ?? -1), cat prints \(lines)")
                continue
            }
            tally.add(.ok, label)
            // A segment of it with chunks of an unknown compression, read as a lone file.
            guard run % 3 == 0,
                let segment = FileManager.default.contents(atPath: output + "/000001.mcap"),
                let damaged = Self.unknownCompression([UInt8](segment), &random)
            else { continue }
            let lone = base + "/lone\(run).mcap"
            try Data(damaged).write(to: URL(fileURLWithPath: lone))
            let loneLabel = "\(label), lone segment with lzma chunks"
            let loneInfo = try MeasuredRun.tlm(["info", lone, "--format", "json"])
            if let outcome = tally.classify(loneInfo) {
                tally.add(outcome, "info \(loneLabel): \(FuzzTally.describe(loneInfo))")
                continue
            }
            let loneCat = try MeasuredRun.tlm(["cat", lone])
            let counted = Self.infoMessages(loneInfo.output)
            let catLines = loneCat.status == 0 ? loneCat.output.split(separator: "\n").count : nil
            if loneInfo.errors.contains("could not be read") || counted == catLines {
                tally.add(.ok, loneLabel)
            } else {
                tally.add(
                    .silentWrong,
                    "\(loneLabel): info counts \(counted ?? -1) and says nothing on stderr; cat: "
                        + "status \(loneCat.status ?? -1) \(catLines ?? -1) lines \(loneCat.errors.prefix(200))")
            }
        }
        print(tally)
        #expect(tally.bad == 0, "\(tally)\n\(tally.failures.joined(separator: "\n"))")
    }
}
