import Foundation
import TestSupport
import Testing

/// Issue 36, item 15 and the minor item: memory that does not grow with the
/// input (peak resident memory of `tlm` at two sizes of input, ten times
/// apart), refusals that come early, and no partial report file after a
/// failed write.
@Suite struct BoundedMemoryTests {
    /// How much more a run on ten times the input may peak at: far less than
    /// what holding per-bucket or per-advertiser state costs at that size.
    static let slackKiB = 20 * 1024

    @Test func queryEveryPrintsBucketsWithoutHoldingThem() throws {
        func run(every: String) throws -> PeakMemoryRun {
            try PeakMemoryRun(
                tlmPath,
                [
                    "query", QueryExportTests.recording, "--topic", "/diot/*/acc_x", "--every", every,
                    "--format", "csv",
                ])
        }
        // A 2 s recording: about 50,000 and 500,000 buckets.
        let small = try run(every: "40us")
        let large = try run(every: "4us")
        #expect(small.status == 0, "\(small.errors)")
        #expect(large.status == 0, "\(large.errors)")
        #expect(
            large.peakKiB < small.peakKiB + Self.slackKiB,
            "peak \(small.peakKiB) KiB at 50k buckets, \(large.peakKiB) KiB at 500k")
    }

    @Test func importCountsAdvertisersInBoundedMemory() throws {
        func run(advertisers: Int) throws -> (PeakMemoryRun, [String: Any]) {
            var capture = SnoopCapture()
            let device: UInt64 = 0xC0FF_EE00_0001
            capture.advertise(device, name: "first")
            for index in 0..<advertisers { capture.advertise(0xD000_0000_0000 + UInt64(index), name: "a\(index)") }
            capture.connect(link: 0x40, device)
            for index in 0..<10 { capture.notify(link: 0x40, handle: 0x10, value: [UInt8(index)]) }
            let file = temporaryPath("advertisers") + ".btsnoop"
            try Data(capture.bytes).write(to: URL(fileURLWithPath: file))
            let report = temporaryPath("advertisers") + ".json"
            let run = try PeakMemoryRun(
                tlmPath, ["import", file, "--output", temporaryPath("advertisers"), "--format", "json", "-q"],
                output: report)
            let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report)))
            return (run, json as? [String: Any] ?? [:])
        }
        let (small, smallReport) = try run(advertisers: 20_000)
        let (large, largeReport) = try run(advertisers: 200_000)
        #expect(small.status == 0, "\(small.errors)")
        #expect(large.status == 0, "\(large.errors)")
        // Every advertiser is counted; those beyond the ones kept at once are counted by address only.
        #expect(smallReport["other_device_count"] as? Int == 20_000)
        #expect(largeReport["other_device_count"] as? Int == 200_000)
        let countedOnly = try #require(largeReport["advertisers_counted_only"] as? Int)
        #expect(countedOnly >= 200_000 - 8_192 && countedOnly < 200_000)
        // The recorded device's advertisement was let go long before it connected: reported, not hidden.
        #expect(largeReport["devices_without_advertisements"] as? Int == 1)
        #expect(
            large.peakKiB < small.peakKiB + Self.slackKiB,
            "peak \(small.peakKiB) KiB at 20k advertisers, \(large.peakKiB) KiB at 200k")
    }

    @Test func tooManyHandlesAreRefusedBeforeAnyStreamIsMade() throws {
        var capture = SnoopCapture()
        capture.connect(link: 0x40, 0xC0FF_EE00_0002)
        for handle in 0...0xFFFF { capture.notify(link: 0x40, handle: UInt16(handle), value: [1]) }
        let file = temporaryPath("handles") + ".btsnoop"
        try Data(capture.bytes).write(to: URL(fileURLWithPath: file))
        let output = temporaryPath("handles")
        let run = try PeakMemoryRun(tlmPath, ["import", file, "--output", output, "-q"], timeout: .seconds(60))
        #expect(run.status == 1)
        #expect(
            run.errors.contains(
                "65536 characteristics with values over 1 device(s) need as many raw streams; "
                    + "a recording holds at most 65534 streams"), "\(run.errors)")
        #expect(!FileManager.default.fileExists(atPath: output))
        #expect(run.peakKiB < 200 * 1024, "peak \(run.peakKiB) KiB")
    }

    @Test(arguments: [["report"], ["plot"]])
    func aReportThatCannotBeWrittenLeavesNoFile(verb: [String]) throws {
        let output = temporaryPath("fsize") + (verb == ["report"] ? ".html" : ".svg")
        // A file-size limit of 48 KiB (the index opens; the file is larger), its signal ignored: the write
        // fails with EFBIG, as on a full disk.
        let script = "trap '' XFSZ; ulimit -f 48; exec \"$0\" \"$@\""
        let result = try finish(
            try start("/bin/bash", ["-c", script, tlmPath] + verb + [QueryExportTests.recording, "--output", output]))
        #expect(result.status == 1, "\(result.errors)")
        #expect(result.errors.contains("write to \(output) failed: File too large; \(output) was removed"))
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}

/// A btsnoop capture (H4) built in memory: advertising reports, LE
/// connections and notifications, each one packet, 1 ms apart.
struct SnoopCapture {
    private(set) var bytes: [UInt8] = Array("btsnoop\0".utf8) + be32(1) + be32(1002)
    /// Microseconds since 0000-01-01 (btsnoop's epoch): 2026-01-01 and on.
    private var micros: UInt64 = 0x00DC_DDB3_0F2F_8000 + 1_767_225_600_000_000

    private mutating func append(type: UInt8, _ payload: [UInt8]) {
        let count = UInt32(payload.count + 1)
        bytes += Self.be32(count) + Self.be32(count) + Self.be32(type == 2 ? 1 : 3) + Self.be32(0)
        bytes += Self.be32(UInt32(micros >> 32)) + Self.be32(UInt32(truncatingIfNeeded: micros))
        bytes.append(type)
        bytes += payload
        micros += 1000
    }

    /// An LE advertising report of `address` with its name and manufacturer data.
    mutating func advertise(_ address: UInt64, name: String) {
        let data = [UInt8(name.utf8.count + 1), 0x09] + Array(name.utf8) + [7, 0xFF, 0xFF, 0xFF, 1, 2, 3, 4]
        let parameters = [0x02, 1, 0x00, 0x00] + Self.le48(address) + [UInt8(data.count)] + data + [0xC4]
        append(type: 4, [0x3E, UInt8(parameters.count)] + parameters)
    }

    /// An LE Connection Complete of `address` on `link`.
    mutating func connect(link: UInt16, _ address: UInt64) {
        let parameters: [UInt8] =
            [0x01, 0x00] + Self.le16(link) + [0x00, 0x00] + Self.le48(address) + [
                0x18, 0x00, 0x00, 0x00, 0xF4, 0x01, 0x00,
            ]
        append(type: 4, [0x3E, UInt8(parameters.count)] + parameters)
    }

    /// A notification of `handle` on `link`, received whole in one ACL packet.
    mutating func notify(link: UInt16, handle: UInt16, value: [UInt8]) {
        let att = [0x1B] + Self.le16(handle) + value
        let l2cap = Self.le16(UInt16(att.count)) + Self.le16(4) + att
        append(type: 2, Self.le16(link | 0x2000) + Self.le16(UInt16(l2cap.count)) + l2cap)
    }

    static func be32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
    static func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
    static func le48(_ value: UInt64) -> [UInt8] { (0..<6).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
}
