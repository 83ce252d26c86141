import Devices
import Testing

@Suite struct ComoduleDecoderTests {
    let decoder = ComoduleDecoder()

    func decode(_ bytes: [UInt8]) throws(ComoduleDecodeError) -> ComoduleFrame {
        try decoder.decode(bytes, from: ComoduleGATT.propertyStream)
    }

    func value(_ bytes: [UInt8]) throws -> ComodulePropertyValue {
        let frame = try decode(bytes)
        #expect(frame.kind == .value)
        return try #require(frame.value)
    }

    func number(_ bytes: [UInt8]) throws -> Double {
        guard case .range(let number) = try value(bytes) else {
            Issue.record("\(bytes) is not a range value")
            return .nan
        }
        return number
    }

    @Test func gattUUIDsFollowTheSpec() {
        #expect(ComoduleGATT.service.description == "c0de0001-0000-4000-8000-00805f9b34fb")
        #expect(ComoduleGATT.propertyStream.description == "c0de0002-0000-4000-8000-00805f9b34fb")
        #expect(ComoduleDecoder.family == .comodule)
    }

    @Test func speedIsU16TimesATenth() throws {
        let frame = try decode([0x01, 0x01, 0x00, 0x02, 0x7B, 0x00])
        #expect(
            frame
                == ComoduleFrame(
                    kind: .value,
                    index: 1,
                    identifier: "speed",
                    unit: "kilometer_per_hour",
                    value: .range(123 * 0.1)
                )
        )
        #expect(try number([0x01, 0x01, 0x00, 0x02, 0xE8, 0x03]) == 100)
        #expect(try number([0x01, 0x01, 0x00, 0x02, 0x00, 0x00]) == 0)
        #expect(try number([0x01, 0x01, 0x00, 0x01, 0xFA]) == 25, "a shorter width than the table's is accepted")
    }

    @Test func stateOfChargeIsU8Percent() throws {
        let frame = try decode([0x01, 0x02, 0x00, 0x01, 0x57])
        #expect(frame.identifier == "state_of_charge" && frame.unit == "percent")
        #expect(frame.value == .range(87))
    }

    @Test func odometerIsU32TimesATenthUpToItsMaximum() throws {
        let frame = try decode([0x01, 0x03, 0x00, 0x04, 0x39, 0x30, 0x00, 0x00])
        #expect(frame.identifier == "odometer" && frame.unit == "kilometer")
        #expect(frame.value == .range(12_345 * 0.1))
        #expect(try number([0x01, 0x03, 0x00, 0x04, 0xFF, 0xFF, 0xFF, 0xFF]) == 4_294_967_295 * 0.1)
    }

    @Test func lightsAndLockedAreStates() throws {
        let states = ["disabled", "blinking", "enabled"]
        for (index, name) in states.enumerated() {
            #expect(try value([0x01, 0x04, 0x00, 0x01, UInt8(index)]) == .state(index: index, identifier: name))
        }
        #expect(try value([0x01, 0x06, 0x00, 0x01, 0x00]) == .state(index: 0, identifier: "unlocked"))
        #expect(try value([0x01, 0x06, 0x00, 0x01, 0x01]) == .state(index: 1, identifier: "locked"))
        #expect(try decode([0x01, 0x04, 0x00, 0x01, 0x02]).unit == "")
    }

    @Test func assistLevelIsARangeOfWholeSteps() throws {
        for level in UInt8(0)...5 {
            let frame = try decode([0x01, 0x05, 0x00, 0x01, level])
            #expect(frame.identifier == "assist_level")
            #expect(frame.value == .range(Double(level)))
        }
    }

    @Test func batteryTemperatureIsSignedTenthsAboveMinusForty() throws {
        // 650 × 0.1 − 40 = 25 °C, signed 2-byte value (length byte 0x12).
        let frame = try decode([0x01, 0x07, 0x00, 0x12, 0x8A, 0x02])
        #expect(frame.identifier == "battery_temperature" && frame.unit == "celsius")
        #expect(frame.value == .range(650 * 0.1 - 40))
        #expect(try number([0x01, 0x07, 0x00, 0x12, 0x00, 0x00]) == -40)
        #expect(try number([0x01, 0x07, 0x00, 0x12, 0x78, 0x05]) == 1_400 * 0.1 - 40)
        // Signed −1 is −40.1 °C: below the read range.
        #expect(throws: ComoduleDecodeError.self) { try decode([0x01, 0x07, 0x00, 0x12, 0xFF, 0xFF]) }
        // Unsigned, the same bytes are 65535 × 0.1 − 40: above the read range.
        #expect(throws: ComoduleDecodeError.self) { try decode([0x01, 0x07, 0x00, 0x02, 0xFF, 0xFF]) }
        // Signed raw 100 is 100 × 0.1 − 40 = −30 °C: below zero without a negative raw value.
        #expect(try number([0x01, 0x07, 0x00, 0x12, 0x64, 0x00]) == 100 * 0.1 - 40)
    }

    @Test func motorSerialIsRawBytes() throws {
        let serial: [UInt8] = [0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70, 0x80]
        let frame = try decode([0x01, 0x10, 0x00, 0x08] + serial)
        #expect(
            frame == ComoduleFrame(kind: .value, index: 16, identifier: "motor_serial", unit: "", value: .raw(serial))
        )
        #expect(try value([0x01, 0x10, 0x00, 0x13, 0xAA, 0xBB, 0xCC]) == .raw([0xAA, 0xBB, 0xCC]))
        #expect(ComodulePropertyValue.raw(serial).description == "1020304050607080")
    }

    @Test func writeAcknowledgedAndErrorFrames() throws {
        let ack = try decode([0x02, 0x04, 0x00, 0x01, 0x01])
        #expect(
            ack
                == ComoduleFrame(
                    kind: .writeAcknowledged,
                    index: 4,
                    identifier: "lights",
                    unit: "",
                    value: .state(index: 1, identifier: "blinking")
                )
        )
        let error = try decode([0x03, 0x05, 0x00, 0x01, 0x07])
        #expect(error == ComoduleFrame(kind: .error, index: 5, identifier: "assist_level", unit: "", errorCode: 7))
        let wide = try decode([0x03, 0x01, 0x00, 0x02, 0x34, 0x12])
        #expect(wide.errorCode == 0x1234 && wide.value == nil)
        #expect(throws: ComoduleDecodeError.self) { try decode([0x02, 0x04, 0x00, 0x01, 0x03]) }
    }

    @Test(
        arguments: [
            ([], "truncatedHeader"),
            ([0x01, 0x01, 0x00], "truncatedHeader"),
            ([0x00, 0x01, 0x00, 0x01, 0x00], "unknownFrameType"),
            ([0x04, 0x01, 0x00, 0x01, 0x00], "unknownFrameType"),
            ([0xFF, 0x01, 0x00, 0x01, 0x00], "unknownFrameType"),
            ([0x01, 0x01, 0x00, 0x21, 0x00], "reservedBitsSet"),
            ([0x01, 0x01, 0x00, 0x41, 0x00], "reservedBitsSet"),
            ([0x01, 0x01, 0x00, 0x81, 0x00], "reservedBitsSet"),
            ([0x01, 0x01, 0x00, 0x00], "invalidValueLength"),
            ([0x01, 0x01, 0x00, 0x10, 0x00], "invalidValueLength"),
            ([0x01, 0x10, 0x00, 0x09, 1, 2, 3, 4, 5, 6, 7, 8, 9], "invalidValueLength"),
            ([0x01, 0x10, 0x00, 0x0F] + [UInt8](repeating: 0, count: 15), "invalidValueLength"),
            ([0x01, 0x01, 0x00, 0x02, 0x7B], "truncatedValue"),
            ([0x01, 0x10, 0x00, 0x08, 1, 2, 3], "truncatedValue"),
            ([0x01, 0x01, 0x00, 0x02, 0x7B, 0x00, 0x00], "trailingBytes"),
            ([0x01, 0x00, 0x00, 0x01, 0x00], "unknownProperty"),
            ([0x01, 0x08, 0x00, 0x01, 0x00], "unknownProperty"),
            ([0x03, 0xFF, 0xFF, 0x01, 0x00], "unknownProperty"),
            ([0x01, 0x01, 0x00, 0x02, 0xE9, 0x03], "valueOutOfRange"),
            ([0x01, 0x02, 0x00, 0x01, 0x65], "valueOutOfRange"),
            ([0x01, 0x05, 0x00, 0x01, 0x06], "valueOutOfRange"),
            ([0x01, 0x05, 0x00, 0x11, 0xFF], "valueOutOfRange"),
            ([0x01, 0x04, 0x00, 0x01, 0x03], "valueOutOfRange"),
            ([0x01, 0x04, 0x00, 0x11, 0xFF], "valueOutOfRange"),
            ([0x01, 0x06, 0x00, 0x08, 0, 0, 0, 0, 0, 0, 0, 0x80], "valueOutOfRange"),
            ([0x01, 0x07, 0x00, 0x12, 0x79, 0x05], "valueOutOfRange"),
        ] as [([UInt8], String)]
    )
    func malformedFramesThrowTypedErrors(bytes: [UInt8], code: String) {
        do {
            let frame = try decode(bytes)
            Issue.record("\(bytes) decoded as \(frame)")
        } catch {
            #expect(error.code.description == code, "\(bytes): \(error)")
            #expect(error.length == bytes.count)
            #expect(error.characteristic == ComoduleGATT.propertyStream)
            #expect(error.propertyIndex == (bytes.count >= 4 ? UInt16(bytes[1]) | UInt16(bytes[2]) << 8 : nil))
            #expect(!error.description.isEmpty)
        }
    }

    @Test func otherCharacteristicsAreTypedErrors() {
        for characteristic in [
            ComoduleGATT.service, CharacteristicUUID(short: 0x2A19), CharacteristicUUID(short: 0xD001),
        ] {
            do {
                _ = try decoder.decode([0x01, 0x01, 0x00, 0x01, 0x00], from: characteristic)
                Issue.record("decoded from \(characteristic)")
            } catch {
                #expect(error.code == .unknownCharacteristic)
                #expect(error.propertyIndex == nil)
            }
        }
    }

    @Test func encoderRoundTripsEveryDefaultProperty() throws {
        let table = ComodulePropertyTable.default
        let frames: [ComoduleFrame] = [
            ComoduleFrame(kind: .value, index: 1, identifier: "speed", unit: "kilometer_per_hour", value: .range(12.3)),
            ComoduleFrame(kind: .value, index: 2, identifier: "state_of_charge", unit: "percent", value: .range(87)),
            ComoduleFrame(kind: .value, index: 3, identifier: "odometer", unit: "kilometer", value: .range(1_234.5)),
            ComoduleFrame(
                kind: .writeAcknowledged,
                index: 4,
                identifier: "lights",
                unit: "",
                value: .state(index: 2, identifier: "enabled")
            ),
            ComoduleFrame(kind: .value, index: 5, identifier: "assist_level", unit: "", value: .range(3)),
            ComoduleFrame(
                kind: .value,
                index: 6,
                identifier: "locked",
                unit: "",
                value: .state(index: 1, identifier: "locked")
            ),
            ComoduleFrame(
                kind: .value,
                index: 7,
                identifier: "battery_temperature",
                unit: "celsius",
                value: .range(-12.5)
            ),
            ComoduleFrame(
                kind: .value,
                index: 16,
                identifier: "motor_serial",
                unit: "",
                value: .raw([1, 2, 3, 4, 5, 6, 7, 8])
            ),
            ComoduleFrame(kind: .error, index: 4, identifier: "lights", unit: "", errorCode: 0x0102),
        ]
        for frame in frames {
            let bytes = try #require(ComoduleEncoder.encode(frame, table: table))
            let decoded = try decode(bytes)
            #expect(
                decoded.kind == frame.kind && decoded.identifier == frame.identifier
                    && decoded.errorCode == frame.errorCode
            )
            switch (decoded.value, frame.value) {
            case (.range(let a)?, .range(let b)?): #expect((a - b).magnitude < 1e-9, "\(a) vs \(b)")
            default: #expect(decoded.value == frame.value)
            }
        }
        #expect(ComoduleEncoder.encode(frames[6], table: table) == [0x01, 0x07, 0x00, 0x12, 0x13, 0x01])
        #expect(
            ComoduleEncoder.encode(ComoduleFrame(kind: .value, index: 9, identifier: "x", unit: ""), table: table)
                == nil
        )
        #expect(
            ComoduleEncoder.encode(
                ComoduleFrame(kind: .value, index: 1, identifier: "speed", unit: "", value: .range(100.5)),
                table: table
            ) == nil
        )
        #expect(
            ComoduleEncoder.encode(
                ComoduleFrame(
                    kind: .value,
                    index: 4,
                    identifier: "lights",
                    unit: "",
                    value: .state(index: 5, identifier: "x")
                ),
                table: table
            ) == nil
        )
    }

    @Test func packetDecoderFormEmitsOneFrame() throws {
        var decoder = ComoduleDecoder()
        var emitted: [ComoduleFrame] = []
        try decoder.decode(
            RawNotification(
                characteristic: ComoduleGATT.propertyStream,
                bytes: [0x01, 0x02, 0x00, 0x01, 0x32],
                receiveTime: 0
            )
        ) {
            emitted.append($0)
        }
        #expect(emitted.map(\.value) == [.range(50)])
    }

    @Test func framesEncodeAsJSONAndBack() throws {
        let frames = [
            try decode([0x01, 0x01, 0x00, 0x02, 0x7B, 0x00]),
            try decode([0x02, 0x04, 0x00, 0x01, 0x01]),
            try decode([0x01, 0x10, 0x00, 0x02, 0xAB, 0xCD]),
            try decode([0x03, 0x05, 0x00, 0x01, 0x07]),
        ]
        for frame in frames {
            #expect(try JSONRoundTrip.decode(ComoduleFrame.self, try JSONRoundTrip.encode(frame)) == frame)
        }
        #expect(
            try JSONRoundTrip.encode(frames[1])
                == #"{"identifier":"lights","index":4,"kind":"writeAcknowledged","unit":"","value":{"identifier":"blinking","index":1,"type":"state"}}"#
        )
        #expect(
            try JSONRoundTrip.encode(frames[3])
                == #"{"errorCode":7,"identifier":"assist_level","index":5,"kind":"error","unit":""}"#
        )
    }
}
