import DeviceRecording
import Devices
import Families
import ROS2
import Recording
import TestSupport
import Testing

@Suite struct DiotRecordingTests {
    static let ch1 = DiotChannel(1)!

    /// One event of every case.
    static let events: [DiotEvent] = [
        .record(DiotRecord(channel: ch1, index: 0, feature: .heartRate, raw: 72)),
        .channelEmpty(ch1),
        .featureSetting(DiotFeatureSetting(index: 2, feature: .hrAlertTriggerTop, raw: 120)),
        .channelBinding(channel: ch1, feature: .accX),
        .channelRate(channel: ch1, milliseconds: 100),
        .battery(percent: 87),
        .deviceInformation(field: .firmwareRevision, value: "2.1"),
        .chipID([0xDE, 0xAD]),
        .debugLog("ok"),
    ]

    func body(_ event: DiotEvent) -> (bytes: [UInt8], value: Double?) {
        var cdr = CDRWriter()
        let value = event.encode(into: &cdr)
        return (Array(cdr.bytes.dropFirst(4)), value)
    }

    /// A raw notification's message is laid out on the stack when it fits
    /// 128 bytes (a value of up to 64 bytes) and is encoded into the chunk otherwise: both give back the
    /// notification, whatever its length (0 bytes, short, at the limit, over
    /// it, an ATT maximum of 512).
    @Test func rawNotificationsOfEveryLengthReadBackAsRecorded() throws {
        let directory = makeTemporaryDirectory() + "/rec"
        let recorder = try Recorder(directory: directory, session: .init(name: "raw", source: "test"))
        let device = try DeviceStreamRecorder(recorder: recorder, decoder: DiotDecoder(), identifier: "D", name: "D")
        let characteristic = DiotGATT.characteristic(for: Self.ch1)
        let lengths = [0, 5, 60, 63, 64, 65, 100, 200, 512]
        let sent = lengths.enumerated().map { index, count in
            RawNotification(
                characteristic: characteristic, bytes: (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ index) },
                receiveTime: 1_000_000_000 + UInt64(index) * 1_000)
        }
        for notification in sent { try device.record(notification) }
        try recorder.close()
        let raw = try RecordingInfo.load(from: directory).streams.filter { $0.kind == "raw" }.map(\.topic)
        #expect(raw.count == 1)
        let read = try RecordingReader(directory: directory).messages(topics: raw)
        #expect(read.map { RawNotificationMessage.decode($0.payload) } == sent)
        #expect(read.map(\.logTime) == sent.map(\.receiveTime))
    }

    @Test func streamKeysAreDistinctAndNewEventsUse257AndUp() {
        let keys = Self.events.map(\.streamKey)
        #expect(Set(keys).count == keys.count)
        #expect(keys == [4, 256, 257, 258, 259, 260, 261, 262, 263])
        #expect(
            Self.events.map(\.streamSpec.name) == [
                "heart_rate", "channel_empty", "features", "channel_map", "channel_rates", "battery",
                "device_information", "chip_id", "debug_log",
            ])
        #expect(
            Self.events.map(\.streamSpec.schema.name) == [
                "tlm/msg/DiotSample", "tlm/msg/DiotChannelEmpty", "tlm/msg/DiotFeatureSetting",
                "tlm/msg/DiotChannelBinding", "tlm/msg/DiotChannelRate", "tlm/msg/DiotBattery",
                "tlm/msg/DeviceInformation", "tlm/msg/DiotChipId", "tlm/msg/DiotDebugLog",
            ])
        #expect(
            DiotEvent.deviceInformation(field: .modelNumber, value: "").streamSpec.schema
                == FjordenValue.deviceInformationSchema)
        #expect(DiotEvent.channelRate(channel: Self.ch1, milliseconds: 0).streamSpec.unit == "ms")
    }

    @Test func newEventsEncodeTheirSchemasFieldsInCDR() {
        #expect(body(Self.events[2]).bytes == [2, 28, 1, 0, 120, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x5E, 0x40])
        #expect(body(Self.events[3]).bytes == [1, 9, 0, 0, 5, 0, 0, 0] + Array("accX".utf8) + [0])
        #expect(body(Self.events[4]).bytes == [1, 0, 0, 0, 100, 0, 0, 0])
        #expect(body(Self.events[5]).bytes == [87])
        #expect(
            body(Self.events[6]).bytes == [17, 0, 0, 0] + Array("firmwareRevision".utf8) + [0, 0, 0, 0, 4, 0, 0, 0]
                + Array("2.1".utf8) + [0])
        #expect(body(Self.events[7]).bytes == [2, 0, 0, 0, 0xDE, 0xAD, 0, 0, 5, 0, 0, 0] + Array("dead".utf8) + [0])
        #expect(body(Self.events[8]).bytes == [3, 0, 0, 0, 0x6F, 0x6B, 0])
        #expect(Self.events.dropFirst(1).allSatisfy { body($0).value == nil })
        #expect(body(Self.events[0]).value == 72)
    }
}
