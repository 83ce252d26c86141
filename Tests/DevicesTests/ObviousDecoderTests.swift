import Devices
import Testing

@Suite struct ObviousDecoderTests {
    let decoder = ObviousDecoder()

    func decode(_ bytes: [UInt8]) throws(ObviousDecodeError) -> ObviousMessage {
        try decoder.decode(bytes, from: ObviousGATT.data)
    }

    func version(_ code: Int64) -> [UInt8] {
        ObviousEncoder.encode(.firmwareVersion(ObviousFirmwareVersion(code: code)))
    }

    @Test func gattUUIDsFollowTheSpec() {
        #expect(ObviousGATT.service.description == "0b710001-0000-4000-8000-00805f9b34fb")
        #expect(ObviousGATT.data.description == "0b710002-0000-4000-8000-00805f9b34fb")
        #expect(ObviousDecoder.family == .obvious)
    }

    @Test(arguments: [
        (Int64(1_002_003), "1.2.3", true),
        (12_034_056, "12.34.56", true),
        (1_000_000_000, "invalid(1000000000)", false),
        (0, "0.0.0", true),
        (999_999_999, "999.999.999", true),
        (-1, "invalid(-1)", false),
        (Int64.max, "invalid(9223372036854775807)", false),
        (Int64.min, "invalid(-9223372036854775808)", false),
    ])
    func firmwareVersionCodesDecodeAndInvalidOnesAreFlagged(code: Int64, text: String, valid: Bool) throws {
        let message = try decode(version(code))
        guard case .firmwareVersion(let decoded) = message else {
            Issue.record("expected a firmware version, got \(message)")
            return
        }
        #expect(decoded.code == code)
        #expect(decoded.description == text)
        #expect(decoded.isValid == valid)
        #expect((decoded.components != nil) == valid)
    }

    @Test func versionComponentsAndPartsInitializer() throws {
        let version = ObviousFirmwareVersion(code: 12_034_056)
        let parts = try #require(version.components)
        #expect(parts.major == 12 && parts.minor == 34 && parts.patch == 56)
        #expect(ObviousFirmwareVersion(major: 1, minor: 2, patch: 3) == ObviousFirmwareVersion(code: 1_002_003))
        #expect(ObviousFirmwareVersion(major: 1000, minor: 0, patch: 0) == nil)
        #expect(ObviousFirmwareVersion(major: 1, minor: -1, patch: 0) == nil)
        #expect(self.version(1_002_003) == [0x02, 0x13, 0x4A, 0x0F, 0, 0, 0, 0, 0])
    }

    @Test func featureStatusRecordsDecodeInOrder() throws {
        let bytes: [UInt8] = [
            0x01, 0x07, 0x00, 0x01, 0x03, 0x34, 0x12, 0x00, 0x00, 0x02, 0x00, 0x01, 0x01, 0x05, 0x00, 0x01, 0x02,
        ]
        let expected: [ObviousFeatureStatus] = [
            ObviousFeatureStatus(featureID: 7, enabled: true, toggle: .activated),
            ObviousFeatureStatus(featureID: 0x1234, enabled: false, toggle: .unknown),
            ObviousFeatureStatus(featureID: 2, enabled: true, toggle: .unsupported),
            ObviousFeatureStatus(featureID: 5, enabled: true, toggle: .deactivated),
        ]
        #expect(try decode(bytes) == .featureStatus(expected))
        #expect(ObviousEncoder.encode(.featureStatus(expected)) == bytes)
        #expect(expected[1].isLocked)
    }

    @Test func progressAndStatusDecode() throws {
        for percent in UInt8(0)...100 {
            #expect(try decode([0x03, percent]) == .upgradeProgress(percent))
        }
        for status in ObviousUpgradeStatus.allCases {
            #expect(try decode([0x04, status.code]) == .upgradeStatus(status))
            #expect(ObviousUpgradeStatus(code: status.code) == status)
        }
        #expect(ObviousUpgradeStatus(code: 3) == .bondCancelled)
        for toggle in ObviousFeatureToggle.allCases {
            #expect(ObviousFeatureToggle(code: toggle.code) == toggle)
        }
    }

    @Test(
        arguments: [
            ([], "emptyValue"),
            ([0x00], "unknownRecordType"),
            ([0x05, 0x01], "unknownRecordType"),
            ([0xFF], "unknownRecordType"),
            ([0x01], "emptyFeatureStatus"),
            ([0x01, 0x01, 0x00, 0x01], "invalidFeatureStatusLength"),
            ([0x01, 0x01, 0x00, 0x01, 0x03, 0x02], "invalidFeatureStatusLength"),
            ([0x01, 0x01, 0x00, 0x02, 0x03], "invalidEnabled"),
            ([0x01, 0x01, 0x00, 0x01, 0x03, 0x02, 0x00, 0xFF, 0x00], "invalidEnabled"),
            ([0x01, 0x01, 0x00, 0x01, 0x04], "invalidToggle"),
            ([0x02], "invalidFirmwareVersionLength"),
            ([0x02, 1, 2, 3, 4, 5, 6, 7], "invalidFirmwareVersionLength"),
            ([0x02, 1, 2, 3, 4, 5, 6, 7, 8, 9], "invalidFirmwareVersionLength"),
            ([0x03], "invalidProgressLength"),
            ([0x03, 50, 0], "invalidProgressLength"),
            ([0x03, 101], "progressOutOfRange"),
            ([0x03, 255], "progressOutOfRange"),
            ([0x04], "invalidStatusLength"),
            ([0x04, 0, 0], "invalidStatusLength"),
            ([0x04, 5], "unknownUpgradeStatus"),
            ([0x04, 255], "unknownUpgradeStatus"),
        ] as [([UInt8], String)]
    )
    func malformedValuesThrowTypedErrors(bytes: [UInt8], code: String) {
        do {
            let message = try decode(bytes)
            Issue.record("\(bytes) decoded as \(message)")
        } catch {
            #expect(error.code.description == code, "\(bytes): \(error)")
            #expect(error.length == bytes.count)
            #expect(error.characteristic == ObviousGATT.data)
            #expect(error.recordType == bytes.first)
            #expect(!error.description.isEmpty)
        }
    }

    @Test func otherCharacteristicsAreTypedErrors() {
        for characteristic in [
            CharacteristicUUID(short: 0x2A19), ObviousGATT.service, CharacteristicUUID(short: 0xD001),
        ] {
            do {
                _ = try decoder.decode([0x03, 10], from: characteristic)
            } catch {
                #expect(error.code == .unknownCharacteristic)
            }
        }
    }

    @Test func packetDecoderFormEmitsOneMessage() throws {
        var decoder = ObviousDecoder()
        var emitted: [ObviousMessage] = []
        try decoder.decode(RawNotification(characteristic: ObviousGATT.data, bytes: [0x03, 40], receiveTime: 1)) {
            emitted.append($0)
        }
        #expect(emitted == [.upgradeProgress(40)])
    }

    @Test func messagesEncodeAsJSONAndBack() throws {
        let messages: [ObviousMessage] = [
            .featureStatus([ObviousFeatureStatus(featureID: 3, enabled: true, toggle: .activated)]),
            .firmwareVersion(ObviousFirmwareVersion(code: 1_002_003)),
            .firmwareVersion(ObviousFirmwareVersion(code: 1_000_000_000)),
            .upgradeProgress(55),
            .upgradeStatus(.downloadFailed),
        ]
        for message in messages {
            let json = try JSONRoundTrip.encode(message)
            #expect(try JSONRoundTrip.decode(ObviousMessage.self, json) == message)
        }
        #expect(
            try JSONRoundTrip.encode(messages[0])
                == #"{"featureStatus":[{"enabled":true,"featureID":3,"toggle":"activated"}]}"#
        )
        #expect(try JSONRoundTrip.encode(messages[3]) == #"{"upgradeProgress":55}"#)
        #expect(try JSONRoundTrip.encode(messages[4]) == #"{"upgradeStatus":"downloadFailed"}"#)
        #expect(throws: (any Error).self) {
            try JSONRoundTrip.decode(ObviousMessage.self, #"{"upgradeProgress":5,"upgradeStatus":"success"}"#)
        }
        #expect(throws: (any Error).self) { try JSONRoundTrip.decode(ObviousMessage.self, #"{}"#) }
        let version = try JSONRoundTrip.encode(ObviousFirmwareVersion(code: 1_002_003))
        #expect(version == #"{"code":1002003,"isValid":true,"version":"1.2.3"}"#)
        let invalid = try JSONRoundTrip.encode(ObviousFirmwareVersion(code: 1_000_000_000))
        #expect(invalid == #"{"code":1000000000,"isValid":false}"#)
    }
}
