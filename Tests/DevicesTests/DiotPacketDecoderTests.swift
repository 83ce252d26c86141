import Devices
import Foundation
import Testing

@Suite struct DiotPacketDecoderTests {
    /// Drives any decoder through the protocol, as the recorder does.
    ///
    /// The decoder comes by value and is decoded from a local copy, not
    /// passed `inout`: `DiotDecoder` is empty, and an empty local passed
    /// `inout` into generic code has no address (the compiler passes an
    /// undefined pointer). ThreadSanitizer's exclusivity instrumentation
    /// records each access at that pointer, and `make tsan` once reported
    /// two of these tests, on two threads, as racing on it. A local of the
    /// generic type has a real address on each thread's own stack.
    func decodeAll<D: PacketDecoder>(_ decoder: D, _ notification: RawNotification) throws(D.Failure) -> [D.Value] {
        var decoder = decoder
        var out: [D.Value] = []
        try decoder.decode(notification) { out.append($0) }
        return out
    }

    func events(_ bytes: [UInt8], on characteristic: CharacteristicUUID) throws(DiotDecodeError) -> [DiotEvent] {
        try decodeAll(DiotDecoder(), RawNotification(characteristic: characteristic, bytes: bytes, receiveTime: 0))
    }

    @Test func emitsEachRecordInOrderThroughThePacketDecoderInterface() throws {
        let events = try events(
            [0x09, 0, 0, 0x80, 0x3F, 0x0A, 0, 0, 0, 0, 0x0B, 0, 0, 0x80, 0xBF],
            on: CharacteristicUUID(short: 0xD001))
        let records = events.compactMap { event -> DiotRecord? in
            if case .record(let record) = event { record } else { nil }
        }
        #expect(records.map(\.feature) == [.accX, .accY, .accZ])
        #expect(records.map(\.value) == [.float(1), .float(0), .float(-1)])
        #expect(records.map(\.index) == [0, 1, 2])
        #expect(DiotDecoder.family == .diot)
    }

    @Test func emitsChannelEmptyAndThrowsForMalformedPackets() throws {
        #expect(try events([0x00], on: CharacteristicUUID(short: 0xD003)) == [.channelEmpty(DiotChannel(3)!)])
        #expect(throws: DiotDecodeError.self) { _ = try events([1, 2, 3], on: CharacteristicUUID(short: 0xD001)) }
        #expect(throws: DiotDecodeError.self) {
            _ = try events([0x04, 0x48, 0, 0, 0], on: CharacteristicUUID(short: 0x2A19))
        }
    }

    @Test func encodesToTheJSONTlmDecodePrints() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let heartRate = try events([0x04, 0x48, 0, 0, 0], on: CharacteristicUUID(short: 0xD003))
        #expect(
            String(decoding: try encoder.encode(heartRate[0]), as: UTF8.self)
                == #"{"channel":3,"feature":"heartRate","feature_code":4,"index":0,"kind":"record","raw":72,"value":72,"value_type":"int"}"#
        )
        let empty = try events([0x00], on: CharacteristicUUID(short: 0xD002))
        #expect(
            String(decoding: try encoder.encode(empty[0]), as: UTF8.self) == #"{"channel":2,"kind":"channel_empty"}"#)
    }
}
