import Devices
import Testing

@Suite struct FjordenDecoderTests {
    let decoder = FjordenDecoder()

    @Test func gattUUIDsFollowTheSpec() {
        #expect(FjordenGATT.service.description == "f10d0001-0000-4000-8000-00805f9b34fb")
        #expect(FjordenGATT.event.description == "f10d0002-0000-4000-8000-00805f9b34fb")
        #expect(FjordenGATT.batteryLevel == CharacteristicUUID(short: 0x2A19))
        #expect(FjordenGATT.batteryService == CharacteristicUUID(short: 0x180F))
        #expect(FjordenGATT.deviceInformationService == CharacteristicUUID(short: 0x180A))
        #expect(FjordenDecoder.family == .fjorden)
    }

    @Test func everyNamedCodeDecodesWithAndWithoutARepeatCount() throws {
        let names = [
            "shutterButtonDown", "shutterButtonReleased", "shutterButtonHalfDown", "dialButtonCW", "dialButtonCCW",
            "dialButtonPress", "dialButtonLongPress", "fnButtonPress", "fnButtonLongPress", "zoomLeverHoldLeft",
            "zoomLeverHoldRight", "zoomLeverLeft", "zoomLeverRight", "zoomLeverNeutral",
        ]
        #expect(FjordenEventCode.named.map(\.description) == names)
        for code in UInt8(0)...13 {
            let single = try decoder.decode([code], from: FjordenGATT.event)
            #expect(single == .gripEvent(FjordenGripEvent(event: FjordenEventCode(code: code), repeatCount: 1)))
            #expect(
                try decoder.decode([code, 1], from: FjordenGATT.event) == single,
                "an explicit 1 equals an absent count"
            )
            let repeated = try decoder.decode([code, 7], from: FjordenGATT.event)
            #expect(repeated == .gripEvent(FjordenGripEvent(event: FjordenEventCode(code: code), repeatCount: 7)))
            #expect(FjordenEventCode(code: code).description == names[Int(code)])
            #expect(FjordenEventCode(code: code).code == code)
        }
    }

    @Test func codesFromFourteenAreUnknownAndKept() throws {
        for code in UInt8(14)...255 {
            let value = try decoder.decode([code, 2], from: FjordenGATT.event)
            #expect(value == .gripEvent(FjordenGripEvent(event: .unknown(code), repeatCount: 2)))
        }
        #expect(FjordenEventCode(code: 14) == .unknown(14))
        #expect(FjordenEventCode(code: 200).description == "unknown(200)")
    }

    @Test func dialDetentsExample() throws {
        #expect(
            try decoder.decode([0x03, 0x04], from: FjordenGATT.event)
                == .gripEvent(FjordenGripEvent(event: .dialButtonCW, repeatCount: 4))
        )
        #expect(
            try decoder.decode([0x04], from: FjordenGATT.event) == .gripEvent(FjordenGripEvent(event: .dialButtonCCW))
        )
        #expect(FjordenEncoder.encode(FjordenGripEvent(event: .dialButtonCW, repeatCount: 4)) == [3, 4])
        #expect(FjordenEncoder.encode(FjordenGripEvent(event: .dialButtonCW)) == [3])
        #expect(FjordenEncoder.encode(FjordenGripEvent(event: .dialButtonCW), explicitRepeatCount: true) == [3, 1])
    }

    @Test func batteryLevelsAndTheLowThreshold() throws {
        for percent in UInt8(0)...100 {
            let value = try decoder.decode([percent], from: FjordenGATT.batteryLevel)
            #expect(value == .batteryLevel(FjordenBatteryLevel(percent: percent)))
            #expect(FjordenBatteryLevel(percent: percent).isLow == (percent < 30))
        }
        #expect(FjordenBatteryLevel(percent: 29).isLow)
        #expect(!FjordenBatteryLevel(percent: 30).isLow)
    }

    @Test func deviceInformationStringsDecodeAsUTF8() throws {
        for field in FjordenDeviceInformation.Field.allCases {
            #expect(FjordenDeviceInformation.Field(characteristic: field.characteristic) == field)
            let value = try decoder.decode(Array("Fjørden Grip ✓".utf8), from: field.characteristic)
            #expect(value == .deviceInformation(FjordenDeviceInformation(field: field, value: "Fjørden Grip ✓")))
            #expect(
                try decoder.decode([], from: field.characteristic)
                    == .deviceInformation(FjordenDeviceInformation(field: field, value: ""))
            )
        }
        #expect(FjordenDeviceInformation.Field.manufacturerName.characteristic == CharacteristicUUID(short: 0x2A29))
        #expect(FjordenDeviceInformation.Field.modelNumber.characteristic == CharacteristicUUID(short: 0x2A24))
        #expect(FjordenDeviceInformation.Field.serialNumber.characteristic == CharacteristicUUID(short: 0x2A25))
        #expect(FjordenDeviceInformation.Field.hardwareRevision.characteristic == CharacteristicUUID(short: 0x2A27))
        #expect(FjordenDeviceInformation.Field.firmwareRevision.characteristic == CharacteristicUUID(short: 0x2A26))
        #expect(FjordenDeviceInformation.Field.softwareRevision.characteristic == CharacteristicUUID(short: 0x2A28))
    }

    @Test(
        arguments: [
            (FjordenGATT.event, [], "emptyEvent"),
            (FjordenGATT.event, [0x03, 0x02, 0x01], "eventTooLong"),
            (FjordenGATT.event, [0x00, 0x00, 0x00, 0x00], "eventTooLong"),
            (FjordenGATT.event, [0x03, 0x00], "zeroRepeatCount"),
            (FjordenGATT.batteryLevel, [], "invalidBatteryLength"),
            (FjordenGATT.batteryLevel, [50, 0], "invalidBatteryLength"),
            (FjordenGATT.batteryLevel, [101], "batteryOutOfRange"),
            (FjordenGATT.batteryLevel, [255], "batteryOutOfRange"),
            (CharacteristicUUID(short: 0x2A29), [0x46, 0xFF], "invalidUTF8"),
            (CharacteristicUUID(short: 0x2A26), [0xC3], "invalidUTF8"),
            (CharacteristicUUID(short: 0x2A24), [0xED, 0xA0, 0x80], "invalidUTF8"),
            (CharacteristicUUID(short: 0x2A28), [0xC0, 0xAF], "invalidUTF8"),
            (CharacteristicUUID(short: 0x2A37), [0x00, 0x48], "unknownCharacteristic"),
            (FjordenGATT.service, [0x01], "unknownCharacteristic"),
            (CharacteristicUUID(short: 0x180F), [50], "unknownCharacteristic"),
        ] as [(CharacteristicUUID, [UInt8], String)]
    )
    func malformedValuesThrowTypedErrors(characteristic: CharacteristicUUID, bytes: [UInt8], code: String) {
        do {
            let value = try decoder.decode(bytes, from: characteristic)
            Issue.record("\(bytes) decoded as \(value)")
        } catch {
            #expect(error.code.description == code, "\(bytes): \(error)")
            #expect(error.length == bytes.count)
            #expect(error.characteristic == characteristic)
            #expect(!error.description.isEmpty)
        }
    }

    @Test func packetDecoderFormEmitsOneValue() throws {
        var decoder = FjordenDecoder()
        var emitted: [FjordenValue] = []
        try decoder.decode(RawNotification(characteristic: FjordenGATT.batteryLevel, bytes: [25], receiveTime: 0)) {
            emitted.append($0)
        }
        #expect(emitted == [.batteryLevel(FjordenBatteryLevel(percent: 25))])
    }

    @Test func valuesEncodeAsJSONAndBack() throws {
        let values: [FjordenValue] = [
            .gripEvent(FjordenGripEvent(event: .dialButtonCW, repeatCount: 3)),
            .gripEvent(FjordenGripEvent(event: .unknown(42))),
            .batteryLevel(FjordenBatteryLevel(percent: 25)),
            .deviceInformation(FjordenDeviceInformation(field: .modelNumber, value: "Grip")),
        ]
        for value in values {
            #expect(try JSONRoundTrip.decode(FjordenValue.self, try JSONRoundTrip.encode(value)) == value)
            #expect(FjordenEncoder.encode(value).characteristic == value.characteristic)
        }
        #expect(
            try JSONRoundTrip.encode(FjordenGripEvent(event: .dialButtonCW, repeatCount: 3))
                == #"{"event":"dialButtonCW","repeatCount":3}"#
        )
        #expect(
            try JSONRoundTrip.encode(FjordenGripEvent(event: .unknown(42)))
                == #"{"event":"unknown(42)","repeatCount":1}"#
        )
        #expect(try JSONRoundTrip.encode(FjordenBatteryLevel(percent: 25)) == #"{"isLow":true,"percent":25}"#)
        #expect(try JSONRoundTrip.encode(values[0]) == #"{"gripEvent":{"event":"dialButtonCW","repeatCount":3}}"#)
        #expect(try JSONRoundTrip.encode(values[3]) == #"{"deviceInformation":{"field":"modelNumber","value":"Grip"}}"#)
        #expect(throws: (any Error).self) { try JSONRoundTrip.decode(FjordenValue.self, #"{}"#) }
        #expect(throws: (any Error).self) { try JSONRoundTrip.decode(FjordenEventCode.self, #""unknown(3)""#) }
        #expect(throws: (any Error).self) { try JSONRoundTrip.decode(FjordenEventCode.self, #""wiggle""#) }
    }
}
