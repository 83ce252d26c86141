import Devices
import Families
import Recording
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
