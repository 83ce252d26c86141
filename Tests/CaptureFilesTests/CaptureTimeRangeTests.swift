import CaptureFiles
import Foundation
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
}
