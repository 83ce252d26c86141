import CaptureFiles
import Devices
import Foundation
import Recording
import Session
import TestSupport
import Testing

/// Issue 36 item 6: a packet time past what a recording holds (nanoseconds
/// in an `Int64`) made `import` write a recording that readers disagreed
/// on. Such a capture is refused, naming the reason, before anything is
/// written; a time just inside the range reads back exactly.
@Suite struct CaptureTimeRangeTests {
    static func packet(at time: UInt64) -> HCITrafficBuilder.Packet {
        HCITrafficBuilder.Packet(type: 4, received: true, time: time, bytes: [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00])
    }

    static func times(_ bytes: [UInt8]) throws(CaptureFileError) -> [UInt64] {
        let reader = try CaptureFileReader(bytes: bytes)
        var times: [UInt64] = []
        while let packet = try reader.next() { times.append(packet.time) }
        return times
    }

    @Test(arguments: [CaptureFileWriter.Format.btsnoopH4, .pcapngH4])
    func aTimePastTheLatestARecordingHoldsIsRefused(format: CaptureFileWriter.Format) async throws {
        let inside: UInt64 = 9_223_372_036_854_775_000  // whole microseconds, under Int64.max
        #expect(try Self.times(CaptureFileWriter.write([Self.packet(at: inside)], as: format)) == [inside])
        let past = CaptureFileWriter.write(
            [Self.packet(at: 1_700_000_000_000_000_000), Self.packet(at: 9_300_000_000_000_000_000)], as: format)
        let error = #expect(throws: CaptureFileError.self) { _ = try Self.times(past) }
        #expect(error?.message.contains("past 2262-04-11T23:47:16Z, later than a recording can hold") == true)
        // Import fails with it.
        await #expect(throws: (any Error).self) { _ = try await importCapture([past]) }
    }

    @Test func aPcapngTimeOffsetThatOverflowsIsRefused() throws {
        // Interface option if_tsoffset (14): 2^62 seconds.
        var bytes = CaptureFileWriter.pcapng([Self.packet(at: 1_700_000_000_000_000_000)], linkType: 201)
        let offset: [UInt8] = [14, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0x40, 0, 0, 0, 0]
        // The interface block follows the 28-byte section header: rebuild it with the option.
        let interface =
            CaptureFileWriter.le32(1) + CaptureFileWriter.le32(UInt32(20 + offset.count + 4))
            + CaptureFileWriter.le16(201) + CaptureFileWriter.le16(0) + CaptureFileWriter.le32(0) + offset
            + [0, 0, 0, 0] + CaptureFileWriter.le32(UInt32(20 + offset.count + 4))
        bytes.replaceSubrange(28..<48, with: interface)
        let error = #expect(throws: CaptureFileError.self) { _ = try Self.times(bytes) }
        #expect(error?.message.contains("later than a recording can hold") == true)
    }

    /// Issue 36 item 7: an `epb_dropcount` of 2^46 + 1 made `import` fail
    /// after writing a recording that nothing could open. The capture is
    /// refused before anything is written; a count at the limit imports.
    @Test func aDropCountNoCaptureCanHaveIsRefusedBeforeWriting() async throws {
        func capture(dropping dropped: UInt64) -> [UInt8] {
            let scenario = CaptureScenario.make(families: [.diot], count: 20, unknown: false)
            var bytes = CaptureFileWriter.pcapng(scenario.packets, linkType: 201)
            // The last enhanced packet block again, with an epb_dropcount option.
            let end = bytes.count
            let length = Int(bytes[end - 4]) | Int(bytes[end - 3]) << 8
            let start = end - length
            let body =
                Array(bytes[(start + 8)..<(end - 4)]) + CaptureFileWriter.le16(4) + CaptureFileWriter.le16(8)
                + CaptureFileWriter.le32(UInt32(truncatingIfNeeded: dropped))
                + CaptureFileWriter.le32(UInt32(dropped >> 32)) + [0, 0, 0, 0]
            let total = CaptureFileWriter.le32(UInt32(body.count + 12))
            bytes.replaceSubrange(start..<end, with: CaptureFileWriter.le32(6) + total + body + total)
            return bytes
        }
        let folder = makeTemporaryDirectory()
        let path = folder + "/huge.pcapng"
        try Data(capture(dropping: 1 << 46 + 1)).write(to: URL(fileURLWithPath: path))
        let session = RecordingSession(importing: CaptureImport(files: [path]), directory: folder + "/imported")
        let error = await #expect(throws: CaptureFileError.self) { _ = try await session.record() }
        #expect(error?.message.contains("dropped 70368744177665 packets in all, more than any capture can") == true)
        #expect(!FileManager.default.fileExists(atPath: folder + "/imported"))
        let (directory, _, _) = try await importCapture([capture(dropping: 1 << 46)])
        let losses = try RecordingInfo.load(from: directory).losses
        #expect(losses.map(\.count).reduce(0, +) >= 1 << 46)
    }
}
