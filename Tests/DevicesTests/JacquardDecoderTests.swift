import Devices
import Testing

/// Decodes one notification and collects what it emits.
private func decodeAll(
    _ bytes: [UInt8],
    on characteristic: CharacteristicUUID,
    decoder: inout JacquardDecoder
) throws(JacquardDecodeError) -> [JacquardValue] {
    var values: [JacquardValue] = []
    try decoder.decode(bytes, from: characteristic) { values.append($0) }
    return values
}

private func decodeAll(
    _ bytes: [UInt8], on characteristic: CharacteristicUUID
) throws(JacquardDecodeError)
    -> [JacquardValue]
{
    var decoder = JacquardDecoder()
    return try decodeAll(bytes, on: characteristic, decoder: &decoder)
}

/// Wraps a message in one C0 fragment.
private func single(_ message: [UInt8]) -> [UInt8] {
    [0xC0] + JacquardProtobufWriter.varint(UInt64(message.count)) + message
}

@Suite struct JacquardDecoderTests {
    @Test func specBatteryNotification() throws {
        let bytes: [UInt8] = [0xC0, 0x0D, 0x08, 0x00, 0x10, 0x17, 0x18, 0x00, 0xCA, 0x07, 0x04, 0x08, 0x32, 0x10, 0x02]
        let values = try decodeAll(bytes, on: JacquardGATT.notify)
        #expect(values == [.batteryStatus(JacquardBatteryStatus(batteryLevel: 50, chargingStatus: .notCharging))])
        // The encoder reproduces the spec's bytes.
        let value = JacquardValue.batteryStatus(JacquardBatteryStatus(batteryLevel: 50, chargingStatus: .notCharging))
        #expect(JacquardMessageEncoder.notifications(for: value).values == [bytes], "encoder must match the spec bytes")
    }

    @Test(arguments: [
        (UInt8(0x01), JacquardGesture.doubleTap),
        (0x02, .brushIn),
        (0x03, .brushOut),
        (0x07, .shortCover),
    ])
    func specGestureNotification(lastByte: UInt8, gesture: JacquardGesture) throws {
        let bytes: [UInt8] = [0xC0, 0x0B, 0x08, 0x08, 0x10, 0x05, 0xAA, 0x39, 0x04, 0x0A, 0x02, 0x08, lastByte]
        let values = try decodeAll(bytes, on: JacquardGATT.notify)
        #expect(values == [.gesture(JacquardGestureEvent(gesture: gesture))], "gesture \(gesture)")
        let encoded = JacquardMessageEncoder.notifications(for: .gesture(JacquardGestureEvent(gesture: gesture)))
        #expect(encoded.characteristic == .notify)
        #expect(encoded.values == [bytes], "encoder must match the spec bytes for \(gesture)")
    }

    @Test func gestureIDs() {
        let expected: [(Int32, JacquardGesture)] = [
            (0, .noInference), (1, .doubleTap), (2, .brushIn), (3, .brushOut), (7, .shortCover), (13, .brushUp),
            (14, .brushDown), (4, .unknown(4)), (-1, .unknown(-1)), (99, .unknown(99)),
        ]
        for (id, gesture) in expected {
            #expect(JacquardGesture(id: id) == gesture)
            #expect(gesture.id == id)
        }
    }

    @Test func unknownGestureIsKept() throws {
        let bytes: [UInt8] = [0xC0, 0x0B, 0x08, 0x08, 0x10, 0x05, 0xAA, 0x39, 0x04, 0x0A, 0x02, 0x08, 0x2A]
        #expect(
            try decodeAll(bytes, on: JacquardGATT.notify) == [.gesture(JacquardGestureEvent(gesture: .unknown(42)))])
    }

    @Test func specIMUPayload() throws {
        let sample: [UInt8] = [
            0x75, 0xFF, 0x1E, 0x00, 0x4B, 0x08, 0xEB, 0xFF, 0x01, 0x00, 0x00, 0x00, 0x59, 0x03, 0x33, 0x00,
        ]
        let values = try decodeAll([0x00, 0x00] + sample + sample, on: JacquardGATT.rawData)
        let expected = JacquardIMUSample(
            sensorID: 0, accelX: -139, accelY: 30, accelZ: 2123, gyroX: -21, gyroY: 1, gyroZ: 0,
            timestampTicks: 3_343_193
        )
        #expect(values == [.imuSample(expected), .imuSample(expected)])
        var encoded: [UInt8] = []
        expected.append(to: &encoded)
        #expect(encoded == sample)
        // Byte 1 is the sensor id; byte 0 is ignored.
        let gear = try decodeAll([0x7F, 0x01] + sample, on: JacquardGATT.rawData)
        #expect(
            gear == [
                .imuSample(
                    JacquardIMUSample(
                        sensorID: 1, accelX: -139, accelY: 30, accelZ: 2123, gyroX: -21, gyroY: 1, gyroZ: 0,
                        timestampTicks: 3_343_193
                    ))
            ])
        #expect(try decodeAll([0x00, 0x00], on: JacquardGATT.rawData).isEmpty, "a header alone has no samples")
    }

    @Test(arguments: [0, 1, 3, 17, 2 + 15, 2 + 17, 2 + 31])
    func imuLengthErrors(length: Int) {
        let expected: JacquardDecodeError.Code = length < 2 ? .imuTooShort : .imuPartialSample
        #expect(throws: JacquardDecodeError(code: expected, characteristic: JacquardGATT.rawData, length: length)) {
            _ = try decodeAll([UInt8](repeating: 0, count: length), on: JacquardGATT.rawData)
        }
    }

    @Test func touchFrame() throws {
        let diff: [UInt8] = [9, 0, 5, 40, 90, 128, 90, 40, 5, 0, 0, 0, 1]
        var touch = JacquardProtobufWriter()
        touch.writeVarintField(4, 77)
        touch.writeBytesField(7, diff)
        var data = JacquardProtobufWriter()
        data.writeMessageField(2, touch)
        data.writeVarintField(3, 123_456)
        var message = JacquardProtobufWriter()
        message.writeVarintField(1, 8)
        message.writeVarintField(2, 5)
        message.writeVarintField(3, 1)
        message.writeMessageField(917, data)
        let values = try decodeAll(single(message.bytes), on: JacquardGATT.notify)
        let frame = JacquardTouchFrame(
            sequence: 77, proximity: 9, lines: Array(diff.dropFirst()), componentID: 1, timestampTicks: 123_456
        )
        #expect(values == [.touchFrame(frame)])
        #expect(frame.lines == Array(diff.dropFirst()))
        #expect(frame.diffDataScaled == diff)
        #expect(frame.line(4) == 128 && frame.line(11) == 1)
    }

    @Test(arguments: [0, 12, 14, -1])
    func touchDataMustBeThirteenBytes(length: Int) {
        var touch = JacquardProtobufWriter()
        touch.writeVarintField(4, 1)
        if length >= 0 { touch.writeBytesField(7, [UInt8](repeating: 1, count: length)) }
        var data = JacquardProtobufWriter()
        data.writeMessageField(2, touch)
        var message = JacquardProtobufWriter()
        message.writeMessageField(917, data)
        let bytes = single(message.bytes)
        #expect(
            throws: JacquardDecodeError(
                code: .invalidTouchData, characteristic: JacquardGATT.notify, length: bytes.count)
        ) {
            _ = try decodeAll(bytes, on: JacquardGATT.notify)
        }
    }

    @Test func dataChannelWithGestureAndTouchEmitsBoth() throws {
        var inference = JacquardProtobufWriter()
        inference.writeVarintField(1, 13)
        var touch = JacquardProtobufWriter()
        touch.writeVarintField(4, 5)
        touch.writeBytesField(7, [UInt8](repeating: 3, count: 13))
        var data = JacquardProtobufWriter()
        data.writeMessageField(1, inference)
        data.writeMessageField(2, touch)
        var message = JacquardProtobufWriter()
        message.writeVarintField(1, 8)
        message.writeMessageField(917, data)
        let values = try decodeAll(single(message.bytes), on: JacquardGATT.notify)
        #expect(
            values == [
                .gesture(JacquardGestureEvent(gesture: .brushUp)),
                .touchFrame(JacquardTouchFrame(sequence: 5, proximity: 3, lines: [UInt8](repeating: 3, count: 12))),
            ])
    }

    @Test func notificationExtensions() throws {
        let values: [JacquardValue] = [
            .attached(JacquardAttached(attachState: true, vendorID: 0xABCD_EF01, productID: 77, componentID: 1)),
            .attached(JacquardAttached(attachState: false, vendorID: 1, productID: 2, componentID: 3)),
            .disconnect(JacquardDisconnect(reconnect: true)),
            .disconnect(JacquardDisconnect(reconnect: false)),
            .error(JacquardErrorNotification(device: 1, subsystem: 2, errorCode: 300)),
            .batteryStatus(JacquardBatteryStatus(batteryLevel: 100, chargingStatus: .charging)),
            .batteryStatus(JacquardBatteryStatus(batteryLevel: 3, chargingStatus: .unknown(9))),
            .notification(JacquardNotification(domain: .dataCollection, opcode: 12, componentID: 4)),
            .notification(JacquardNotification(domain: .unknown(77), opcode: -3, componentID: 0)),
        ]
        for value in values {
            let (role, fragments) = JacquardMessageEncoder.notifications(for: value)
            #expect(role == .notify)
            #expect(fragments.count == 1)
            #expect(try decodeAll(fragments[0], on: JacquardGATT.notify) == [value], "\(value)")
        }
    }

    @Test func responsesWithPayloads() throws {
        let hello = JacquardHello(
            protocolMin: 2, protocolMax: 3, vendor: "Google", model: "Jacquard Tag", vendorID: 0x1122_3344, productID: 5
        )
        let info = JacquardDeviceInfo(
            vendor: "Google LLC", model: "Jacquard Tag (snap)", revision: "rev-3",
            uuid: "8a1c1b6e-3f0d-4c51-9b7e-0123456789ab", firmwareMajor: 1, firmwareMinor: 96, firmwarePoint: 2,
            vendorID: 0xFFFF_FFFF, productID: 0x8000_0000
        )
        let responses: [JacquardResponse] = [
            JacquardResponse(id: 1, status: .ok, payload: .hello(hello)),
            JacquardResponse(id: 2, status: .ok, componentID: 1, payload: .deviceInfo(info)),
            JacquardResponse(
                id: 3, status: .busy,
                payload: .batteryStatus(JacquardBatteryStatus(batteryLevel: 9, chargingStatus: .charging))),
            JacquardResponse(id: 4, status: .unknownError),
            JacquardResponse(id: 5, status: .unknown(6)),
        ]
        var decoder = JacquardDecoder()
        for response in responses {
            let (role, fragments) = JacquardMessageEncoder.notifications(for: .response(response))
            #expect(role == .response)
            var values: [JacquardValue] = []
            for fragment in fragments {
                values += try decodeAll(fragment, on: JacquardGATT.response, decoder: &decoder)
            }
            #expect(values == [.response(response)])
        }
        #expect(
            JacquardMessageEncoder.notifications(for: .response(responses[1])).values.count > 1,
            "DeviceInfo spans fragments")
    }

    @Test func statusAndDomainTables() {
        let statuses: [(Int32, JacquardStatus)] = [
            (0, .ok), (1, .unsupported), (2, .badParam), (3, .battery), (4, .hardware), (5, .auth), (7, .invalidState),
            (10, .busy), (255, .unknownError), (6, .unknown(6)),
        ]
        for (raw, status) in statuses {
            #expect(JacquardStatus(rawValue: raw) == status)
            #expect(status.rawValue == raw)
        }
        let domains: [(Int32, JacquardDomain)] = [
            (0, .base), (1, .dfu), (8, .gear), (9, .dataCollection), (2, .unknown(2)),
        ]
        for (raw, domain) in domains {
            #expect(JacquardDomain(rawValue: raw) == domain)
            #expect(domain.rawValue == raw)
        }
    }

    @Test func numericFieldsAcceptFixedWireTypesAndWrongKindsAreSkipped() throws {
        var payload = JacquardProtobufWriter()
        payload.writeFixed32Field(1, 64)  // battery_level as fixed32
        payload.writeBytesField(2, [1, 2, 3])  // charging_status with the wrong wire type: skipped
        payload.writeFixed64Field(2, 1)  // then as fixed64
        var message = JacquardProtobufWriter()
        message.writeBytesField(1, [0xFF])  // domain with the wrong wire type: skipped
        message.writeMessageField(121, payload)
        let values = try decodeAll(single(message.bytes), on: JacquardGATT.notify)
        #expect(values == [.batteryStatus(JacquardBatteryStatus(batteryLevel: 64, chargingStatus: .charging))])
    }

    @Test func characteristicsRouting() {
        #expect(
            throws: JacquardDecodeError(code: .commandCharacteristic, characteristic: JacquardGATT.command, length: 2)
        ) {
            _ = try decodeAll([0xC0, 0x00], on: JacquardGATT.command)
        }
        let other = CharacteristicUUID(short: 0x2A19)
        #expect(throws: JacquardDecodeError(code: .unknownCharacteristic, characteristic: other, length: 1)) {
            _ = try decodeAll([0x32], on: other)
        }
        #expect(JacquardCharacteristic(JacquardGATT.service) == nil)
        #expect(JacquardGATT.service.description == "d2f2bf0d-d165-445c-b0e1-2d6b642ec57b")
        #expect(JacquardGATT.command.description == "d2f2eabb-d165-445c-b0e1-2d6b642ec57b")
        #expect(JacquardGATT.response.description == "d2f2b8d0-d165-445c-b0e1-2d6b642ec57b")
        #expect(JacquardGATT.notify.description == "d2f2b8d1-d165-445c-b0e1-2d6b642ec57b")
        #expect(JacquardGATT.rawData.description == "d2f2b8d2-d165-445c-b0e1-2d6b642ec57b")
        for role in JacquardCharacteristic.allCases {
            #expect(JacquardCharacteristic(role.uuid) == role)
            #expect(CharacteristicUUID(role.uuid.description) == role.uuid)
        }
        #expect(JacquardDecoder.family == .jacquard)
    }

    @Test func emptyEnvelopeIsABareNotification() throws {
        #expect(
            try decodeAll([0xC0, 0x00], on: JacquardGATT.notify) == [
                .notification(JacquardNotification(domain: .base, opcode: 0, componentID: 0))
            ])
        #expect(
            try decodeAll([0xC0, 0x00], on: JacquardGATT.response) == [.response(JacquardResponse(id: 0, status: .ok))])
    }

    @Test func errorDescriptionNamesCodeAndCharacteristic() {
        let error = JacquardDecodeError(code: .lengthMismatch, characteristic: JacquardGATT.notify, length: 5)
        #expect(error.description.contains("notify"))
        #expect(error.description.contains("d2f2b8d1"))
        #expect(error.code.description == "lengthMismatch")
        #expect(
            Set(JacquardDecodeError.Code.allCases.map(\.description)).count == JacquardDecodeError.Code.allCases.count)
    }
}
