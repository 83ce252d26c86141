import Devices
import Foundation
import Testing

@Suite struct DiotServiceDecoderTests {
    let decoder = DiotDecoder()

    func events(_ bytes: [UInt8], on characteristic: CharacteristicUUID) throws(DiotDecodeError) -> [DiotEvent] {
        let decoder = DiotDecoder()
        var out: [DiotEvent] = []
        try decoder.decode(RawNotification(characteristic: characteristic, bytes: bytes, receiveTime: 0)) {
            out.append($0)
        }
        return out
    }

    func error(_ bytes: [UInt8], on characteristic: CharacteristicUUID) -> DiotDecodeError? {
        do {
            let events = try events(bytes, on: characteristic)
            Issue.record("expected an error, got \(events)")
            return nil
        } catch {
            #expect(error.characteristic == characteristic, "characteristic")
            #expect(error.length == bytes.count, "length")
            #expect(error.channel == nil, "no data channel")
            return error
        }
    }

    // MARK: Spec examples

    @Test func channelsReplySpecExampleBindsAccXAndAccY() throws {
        #expect(
            try events([0x01, 0x09, 0x02, 0x0A], on: DiotGATT.channelsCommand) == [
                .channelBinding(channel: DiotChannel(1)!, feature: .accX),
                .channelBinding(channel: DiotChannel(2)!, feature: .accY),
            ]
        )
    }

    @Test func ratesReplySpecExampleIsChannelOneAt100Milliseconds() throws {
        #expect(
            try events([0x01, 0x64, 0x00, 0x00, 0x00], on: DiotGATT.ratesCommand)
                == [.channelRate(channel: DiotChannel(1)!, milliseconds: 100)]
        )
        #expect(
            try events([0x09, 0x00, 0x00, 0x00, 0x00, 0x02, 0xE8, 0x03, 0x00, 0x00], on: DiotGATT.ratesCommand) == [
                .channelRate(channel: DiotChannel(9)!, milliseconds: 0),
                .channelRate(channel: DiotChannel(2)!, milliseconds: 1_000),
            ]
        )
    }

    @Test func featuresReplyUsesTheDataChannelRecordLayout() throws {
        let bytes: [UInt8] = [0x07, 0x66, 0x66, 0x12, 0x42, 0x04, 0x48, 0x00, 0x00, 0x00, 0x2B, 0x00, 0xF1, 0x53, 0x65]
        let decoded = try events(bytes, on: DiotGATT.featuresCommand)
        #expect(
            decoded == [
                .featureSetting(DiotFeatureSetting(index: 0, feature: .temperature, value: .float(36.6))),
                .featureSetting(DiotFeatureSetting(index: 1, feature: .heartRate, raw: 72)),
                .featureSetting(DiotFeatureSetting(index: 2, feature: .currentDate, raw: 1_700_000_000)),
            ]
        )
        guard case .featureSetting(let setting) = decoded[2] else { return }
        #expect(setting.value == .date(1_700_000_000))
        // Unknown codes are kept, as on data channels.
        let unknown = DiotFeatureSetting(index: 0, feature: DiotFeature(rawValue: 0xEE), raw: 0x0403_0201)
        #expect(try events([0xEE, 1, 2, 3, 4], on: DiotGATT.featuresCommand) == [.featureSetting(unknown)])
    }

    @Test func dataChannelsStillDecodeThroughTheSameEntryPoint() throws {
        #expect(
            try decoder.decodeEvents([0x04, 0x48, 0, 0, 0], from: DiotGATT.characteristic(for: DiotChannel(3)!))
                == [.record(DiotRecord(channel: DiotChannel(3)!, index: 0, feature: .heartRate, raw: 72))]
        )
        let empty = try decoder.decodeEvents([0x00], from: CharacteristicUUID(short: 0xD009))
        #expect(empty == [.channelEmpty(DiotChannel(9)!)])
    }

    // MARK: Malformed command replies

    @Test(arguments: [
        (DiotGATT.featuresCommand, [UInt8](), DiotDecodeError.Code.emptyValue),
        (DiotGATT.featuresCommand, [0x00], .invalidLength),
        (DiotGATT.featuresCommand, [0x04, 0x48, 0, 0], .invalidLength),
        (DiotGATT.featuresCommand, [0x04, 0x48, 0, 0, 0, 0x04], .invalidLength),
        (DiotGATT.channelsCommand, [], .emptyValue),
        (DiotGATT.channelsCommand, [0x01], .invalidLength),
        (DiotGATT.channelsCommand, [0x01, 0x09, 0x02], .invalidLength),
        (DiotGATT.ratesCommand, [], .emptyValue),
        (DiotGATT.ratesCommand, [0x01, 0x64, 0, 0], .invalidLength),
        (DiotGATT.ratesCommand, [0x01, 0x64, 0, 0, 0, 0x02], .invalidLength),
    ])
    func commandRepliesWithBadLengthsThrowTypedErrors(
        characteristic: CharacteristicUUID,
        bytes: [UInt8],
        code: DiotDecodeError.Code
    ) {
        let error = error(bytes, on: characteristic)
        #expect(error?.code == code)
        #expect(error?.offendingByte == nil)
        let mentions = bytes.isEmpty ? "empty" : "\(bytes.count) bytes"
        #expect(error?.message.contains(mentions) == true, "\(error?.message ?? "")")
    }

    @Test(arguments: [UInt8(0), 10, 0xFF])
    func channelNumbersOutsideOneToNineAreRejected(channel: UInt8) {
        let binding = error([0x01, 0x09, channel, 0x0A], on: DiotGATT.channelsCommand)
        #expect(binding?.code == .invalidChannel)
        #expect(binding?.offendingByte == channel)
        #expect(binding?.message.contains("channel \(channel)") == true)
        let rate = error([channel, 0x64, 0, 0, 0], on: DiotGATT.ratesCommand)
        #expect(rate?.code == .invalidChannel)
        #expect(rate?.offendingByte == channel)
        #expect(rate?.code.description == "invalidChannel")
    }

    @Test func aMalformedReplyEmitsNothing() {
        let decoder = DiotDecoder()
        var emitted = 0
        #expect(throws: DiotDecodeError.self) {
            try decoder.decode(
                RawNotification(characteristic: DiotGATT.channelsCommand, bytes: [1, 9, 2, 10, 12, 11], receiveTime: 0)
            ) { _ in emitted += 1 }
        }
        #expect(emitted == 0)
    }

    // MARK: Battery, device information, chip id, debug log

    @Test(arguments: [UInt8(0), 1, 57, 100])
    func batteryLevelIsOneBytePercent(percent: UInt8) throws {
        #expect(try events([percent], on: DiotGATT.batteryLevel) == [.battery(percent: percent)])
    }

    @Test func batteryLevelRejectsBadLengthsAndValuesAbove100() {
        #expect(error([], on: DiotGATT.batteryLevel)?.code == .emptyValue)
        #expect(error([50, 0], on: DiotGATT.batteryLevel)?.code == .invalidLength)
        #expect(error([0x04, 0x48, 0, 0, 0], on: DiotGATT.batteryLevel)?.code == .invalidLength)
        let tooHigh = error([101], on: DiotGATT.batteryLevel)
        #expect(tooHigh?.code == .batteryOutOfRange)
        #expect(tooHigh?.offendingByte == 101)
        #expect(tooHigh?.message.contains("101 percent") == true)
        #expect(error([0xFF], on: DiotGATT.batteryLevel)?.code == .batteryOutOfRange)
    }

    @Test func deviceInformationStringsAreUTF8() throws {
        let fields: [(UInt16, DiotDeviceInformationField)] = [
            (0x2A29, .manufacturerName), (0x2A24, .modelNumber), (0x2A27, .hardwareRevision),
            (0x2A26, .firmwareRevision), (0x2A28, .softwareRevision),
        ]
        for (short, field) in fields {
            let characteristic = CharacteristicUUID(short: short)
            #expect(field.characteristic == characteristic)
            #expect(DiotDeviceInformationField(characteristic: characteristic) == field)
            #expect(
                try events(Array("Daatrics Ø 1.2".utf8), on: characteristic)
                    == [.deviceInformation(field: field, value: "Daatrics Ø 1.2")]
            )
            #expect(try events([], on: characteristic) == [.deviceInformation(field: field, value: "")])
            let invalid = error([0x41, 0xC3, 0x28], on: characteristic)
            #expect(invalid?.code == .invalidUTF8)
            #expect(invalid?.message.contains(field.rawValue) == true)
        }
        #expect(DiotDeviceInformationField(characteristic: CharacteristicUUID(short: 0x2A25)) == nil)
    }

    @Test func chipIDIsRawBytesShownAsHex() throws {
        let bytes: [UInt8] = [0x0A, 0x1B, 0xFF, 0x00]
        #expect(try events(bytes, on: DiotGATT.chipID) == [.chipID(bytes)])
        #expect(DiotEvent.hex(bytes) == "0a1bff00")
        #expect(error([], on: DiotGATT.chipID)?.code == .emptyValue)
    }

    @Test func debugLogLinesAreASCIIWithoutTheLineBreak() throws {
        #expect(try events(Array("boot ok\r\n".utf8), on: DiotGATT.debugLog) == [.debugLog("boot ok")])
        #expect(try events(Array("a\tb".utf8), on: DiotGATT.debugLog) == [.debugLog("a\tb")])
        #expect(try events([0x0A], on: DiotGATT.debugLog) == [.debugLog("")])
        #expect(error([], on: DiotGATT.debugLog)?.code == .emptyValue)
        let nonASCII = error([0x6F, 0x6B, 0xC3, 0xA9], on: DiotGATT.debugLog)
        #expect(nonASCII?.code == .invalidASCII)
        #expect(nonASCII?.offendingByte == 0xC3)
    }

    @Test func unknownCharacteristicsThrowUnknownCharacteristic() {
        for short: UInt16 in [0xC000, 0xC004, 0xD000, 0xD00A, 0x2A25, 0xFFD2, 0xFF72, 0x180F] {
            let error = error([0x01], on: CharacteristicUUID(short: short))
            #expect(error?.code == .unknownCharacteristic)
            #expect(error?.message.contains("not a DIoT characteristic") == true)
        }
        // The data-only API keeps its own error for non-data characteristics.
        let notData = DiotDecodeError(code: .notADataChannel, characteristic: DiotGATT.chipID, channel: nil, length: 1)
        #expect(throws: notData) {
            try decoder.decode([0x01], from: DiotGATT.chipID)
        }
    }

    // MARK: JSON

    @Test func encodesEveryEventKindToTheJSONTlmDecodePrints() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        func json(_ event: DiotEvent) throws -> String {
            String(decoding: try encoder.encode(event), as: UTF8.self)
        }
        let ch1 = DiotChannel(1)!
        #expect(
            try json(.featureSetting(DiotFeatureSetting(index: 1, feature: .heartRate, raw: 72)))
                == #"{"feature":"heartRate","feature_code":4,"index":1,"kind":"feature_setting","raw":72,"value":72,"value_type":"int"}"#
        )
        #expect(
            try json(.channelBinding(channel: ch1, feature: .accX))
                == #"{"channel":1,"feature":"accX","feature_code":9,"kind":"channel_binding"}"#
        )
        #expect(
            try json(.channelRate(channel: ch1, milliseconds: 100))
                == #"{"channel":1,"kind":"channel_rate","milliseconds":100}"#
        )
        #expect(try json(.battery(percent: 87)) == #"{"kind":"battery","percent":87}"#)
        #expect(
            try json(.deviceInformation(field: .firmwareRevision, value: "2.1.0"))
                == #"{"field":"firmwareRevision","kind":"device_information","value":"2.1.0"}"#
        )
        #expect(try json(.chipID([0xDE, 0xAD])) == #"{"hex":"dead","kind":"chip_id"}"#)
        #expect(try json(.debugLog("boot ok")) == #"{"kind":"debug_log","line":"boot ok"}"#)
        // The data-channel forms are unchanged.
        #expect(
            try json(.record(DiotRecord(channel: DiotChannel(3)!, index: 0, feature: .heartRate, raw: 72)))
                == #"{"channel":3,"feature":"heartRate","feature_code":4,"index":0,"kind":"record","raw":72,"value":72,"value_type":"int"}"#
        )
        #expect(try json(.channelEmpty(DiotChannel(2)!)) == #"{"channel":2,"kind":"channel_empty"}"#)
    }

    @Test func eventsKnowTheirCharacteristic() {
        #expect(DiotEvent.battery(percent: 1).characteristic == DiotGATT.batteryLevel)
        let rate = DiotEvent.channelRate(channel: DiotChannel(1)!, milliseconds: 0)
        #expect(rate.characteristic == DiotGATT.ratesCommand)
        // The optional offending byte sits in padding: the hot path's error keeps its size.
        #expect(MemoryLayout<DiotDecodeError>.size <= 40)
        #expect(DiotEvent.deviceInformation(field: .modelNumber, value: "").characteristic == DiotGATT.modelNumber)
        #expect(DiotEvent.channelEmpty(DiotChannel(4)!).characteristic == CharacteristicUUID(short: 0xD004))
    }
}
