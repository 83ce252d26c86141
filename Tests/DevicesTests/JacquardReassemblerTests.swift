import Devices
import Testing

@Suite struct JacquardReassemblerTests {
    @Test func specFiftyNineByteMessageIsOneFragment() throws {
        let message = (1...59).map { UInt8($0) }
        let fragments = JacquardFragmenter.fragments(of: message)
        #expect(fragments == [[0xC0, 0x3B] + message])
        #expect(fragments[0].count == 61)
        var reassembler = JacquardReassembler(characteristic: JacquardGATT.notify)
        #expect(try reassembler.append(fragments[0]) == message)
    }

    @Test(arguments: [0, 1, 61, 62, 63, 100, 124, 125, 126, 500, 1024])
    func fragmentRoundTrip(length: Int) throws {
        let message = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let fragments = JacquardFragmenter.fragments(of: message)
        #expect(fragments.allSatisfy { $0.count <= 64 })
        #expect(fragments[0][0] & 0x80 != 0)
        #expect(fragments.last![0] & 0x40 != 0)
        for (index, fragment) in fragments.enumerated() {
            #expect(fragment[0] & 0x3F == UInt8(index & 0x3F))
            #expect((fragment[0] & 0x40 != 0) == (index == fragments.count - 1))
            #expect((fragment[0] & 0x80 != 0) == (index == 0))
        }
        var reassembler = JacquardReassembler(characteristic: JacquardGATT.response)
        var result: [UInt8]?
        for (index, fragment) in fragments.enumerated() {
            result = try reassembler.append(fragment)
            #expect((result != nil) == (index == fragments.count - 1))
        }
        #expect(result == message)
        #expect(!reassembler.isInProgress)
    }

    private func expectError(
        _ code: JacquardDecodeError.Code,
        after prefix: [[UInt8]],
        fragment: [UInt8],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        var reassembler = JacquardReassembler(characteristic: JacquardGATT.notify)
        for earlier in prefix { _ = try reassembler.append(earlier) }
        #expect(
            throws: JacquardDecodeError(code: code, characteristic: JacquardGATT.notify, length: fragment.count),
            sourceLocation: sourceLocation
        ) {
            _ = try reassembler.append(fragment)
        }
        #expect(!reassembler.isInProgress, "the message is dropped", sourceLocation: sourceLocation)
        // The reassembler stays usable.
        #expect(try reassembler.append([0xC0, 0x01, 0x08]) == [0x08], sourceLocation: sourceLocation)
    }

    @Test func continuationWithoutFirstIsAnError() throws {
        try expectError(.fragmentWithoutStart, after: [], fragment: [0x01, 0x08, 0x00])
        try expectError(.fragmentWithoutStart, after: [], fragment: [0x41, 0x08])
        try expectError(.fragmentWithoutStart, after: [], fragment: [0x00])
        // After a completed message nothing is in progress either.
        try expectError(.fragmentWithoutStart, after: [[0xC0, 0x00]], fragment: [0x41])
    }

    @Test func emptyNotificationIsAnError() throws {
        try expectError(.emptyFragment, after: [], fragment: [])
    }

    @Test func counterOutOfSequenceDropsTheMessage() throws {
        let first: [UInt8] = [0x80, 0x0A, 1, 2, 3]
        // Counter 2 where 1 is expected, then counter 1 twice.
        try expectError(.fragmentOutOfSequence, after: [first], fragment: [0x42, 4, 5, 6, 7, 8, 9, 10])
        try expectError(.fragmentOutOfSequence, after: [first, [0x01, 4]], fragment: [0x41, 5, 6, 7, 8, 9, 10])
        try expectError(.fragmentOutOfSequence, after: [], fragment: [0x81, 0x02, 1, 2])  // FIRST with counter 1
        // The fragment after a dropped message is an orphan.
        var reassembler = JacquardReassembler(characteristic: JacquardGATT.notify)
        _ = try reassembler.append(first)
        #expect(throws: JacquardDecodeError.self) { _ = try reassembler.append([0x02, 4]) }
        #expect(
            throws: JacquardDecodeError(code: .fragmentWithoutStart, characteristic: JacquardGATT.notify, length: 2)
        ) {
            _ = try reassembler.append([0x43, 5])
        }
    }

    @Test func messagesOver1024BytesAreDropped() throws {
        try expectError(.messageTooLong, after: [], fragment: [0x80, 0x81, 0x08, 1, 2])  // declares 1025
        try expectError(.messageTooLong, after: [], fragment: [0xC0, 0x81, 0x08] + [UInt8](repeating: 0, count: 61))
        // Declared 1024, then fragments that grow past 1024 before LAST.
        var fragments = JacquardFragmenter.fragments(of: [UInt8](repeating: 1, count: 1024))
        let last = fragments.removeLast()
        let extra: [UInt8] = [last[0] & 0x3F] + [UInt8](repeating: 2, count: 63)
        try expectError(.messageTooLong, after: fragments, fragment: extra)
        #expect(JacquardFragmenter.fragments(of: [UInt8](repeating: 1, count: 1024)).count == 17)
        // An oversized FIRST fragment (a large MTU) cannot smuggle in more than 1024 bytes.
        try expectError(.messageTooLong, after: [], fragment: [0x80, 0x80, 0x08] + [UInt8](repeating: 0, count: 1025))
    }

    @Test func lastWithWrongByteCountIsDropped() throws {
        try expectError(.lengthMismatch, after: [], fragment: [0xC0, 0x03, 1, 2])
        try expectError(.lengthMismatch, after: [], fragment: [0xC0, 0x01, 1, 2])
        try expectError(.lengthMismatch, after: [[0x80, 0x05, 1, 2]], fragment: [0x41, 3, 4])
        try expectError(.lengthMismatch, after: [[0x80, 0x05, 1, 2]], fragment: [0x41, 3, 4, 5, 6])
    }

    @Test func invalidLengthVarintInFirstFragment() throws {
        try expectError(.invalidMessageLength, after: [], fragment: [0xC0])
        try expectError(.invalidMessageLength, after: [], fragment: [0x80, 0x80])
        try expectError(.invalidMessageLength, after: [], fragment: [0xC0] + [UInt8](repeating: 0x80, count: 11))
    }

    @Test func firstResetsAMessageInProgress() throws {
        var reassembler = JacquardReassembler(characteristic: JacquardGATT.notify)
        #expect(try reassembler.append([0x80, 0x0A, 1, 2, 3]) == nil)
        #expect(reassembler.isInProgress)
        #expect(try reassembler.append([0x80, 0x03, 9]) == nil)
        #expect(try reassembler.append([0x41, 8, 7]) == [9, 8, 7])
        // And a single-fragment message in the middle of another replaces it.
        #expect(try reassembler.append([0x80, 0x0A, 1, 2, 3]) == nil)
        #expect(try reassembler.append([0xC0, 0x01, 5]) == [5])
        #expect(!reassembler.isInProgress)
    }

    @Test func counterWrapsAfter63() throws {
        // A fragment size of 12 makes a 1000-byte message 91 fragments long.
        let message = (0..<1000).map { UInt8(truncatingIfNeeded: $0) }
        let fragments = JacquardFragmenter.fragments(of: message, maximumLength: 12)
        #expect(fragments.count > 64)
        var reassembler = JacquardReassembler(characteristic: JacquardGATT.notify)
        var result: [UInt8]?
        for fragment in fragments { result = try reassembler.append(fragment) }
        #expect(result == message)
    }

    /// Fragments of messages on the response and notify characteristics,
    /// interleaved, with IMU notifications in between: each characteristic
    /// reassembles its own.
    @Test func interleavedAcrossCharacteristics() throws {
        let info = JacquardDeviceInfo(
            vendor: String(repeating: "V", count: 70), model: "Jacquard Tag", revision: "3",
            uuid: "00000000-0000-4000-8000-000000000000", firmwareMajor: 1, firmwareMinor: 2, firmwarePoint: 3,
            vendorID: 7, productID: 8
        )
        let response = JacquardValue.response(JacquardResponse(id: 9, status: .ok, payload: .deviceInfo(info)))
        let responseFragments = JacquardMessageEncoder.notifications(for: response).values
        // A notification large enough to span fragments: an unknown extension padded out.
        var envelope = JacquardProtobufWriter()
        envelope.writeVarintField(1, 0)
        envelope.writeVarintField(2, 23)
        envelope.writeBytesField(500, [UInt8](repeating: 0xAB, count: 150))
        var battery = JacquardProtobufWriter()
        battery.writeVarintField(1, 33)
        battery.writeVarintField(2, 2)
        envelope.writeMessageField(121, battery)
        let notifyFragments = JacquardFragmenter.fragments(of: envelope.bytes)
        #expect(responseFragments.count >= 2 && notifyFragments.count >= 3)
        let imu = JacquardMessageEncoder.imuNotification(
            samples: [
                JacquardIMUSample(
                    sensorID: 0, accelX: 1, accelY: 2, accelZ: 3, gyroX: 4, gyroY: 5, gyroZ: 6, timestampTicks: 7)
            ],
            sensorID: 0
        )
        var sequence: [(CharacteristicUUID, [UInt8])] = []
        for index in 0..<max(responseFragments.count, notifyFragments.count) {
            if index < notifyFragments.count { sequence.append((JacquardGATT.notify, notifyFragments[index])) }
            sequence.append((JacquardGATT.rawData, imu))
            if index < responseFragments.count { sequence.append((JacquardGATT.response, responseFragments[index])) }
        }
        var decoder = JacquardDecoder()
        var values: [JacquardValue] = []
        for (characteristic, bytes) in sequence {
            try decoder.decode(bytes, from: characteristic) { values.append($0) }
        }
        let nonIMU = values.filter { if case .imuSample = $0 { false } else { true } }
        #expect(nonIMU.count == 2)
        #expect(nonIMU.contains(response))
        #expect(nonIMU.contains(.batteryStatus(JacquardBatteryStatus(batteryLevel: 33, chargingStatus: .notCharging))))
        #expect(values.count - nonIMU.count == max(responseFragments.count, notifyFragments.count))
        #expect(!decoder.isReassembling(.notify) && !decoder.isReassembling(.response))
    }

    @Test func decoderResetDropsMessagesInProgress() throws {
        var decoder = JacquardDecoder()
        try decoder.decode([0x80, 0x0A, 1, 2, 3], from: JacquardGATT.notify) { _ in }
        #expect(decoder.isReassembling(.notify))
        decoder.reset()
        #expect(!decoder.isReassembling(.notify))
        #expect(throws: JacquardDecodeError.self) { try decoder.decode([0x41, 4], from: JacquardGATT.notify) { _ in } }
    }
}
