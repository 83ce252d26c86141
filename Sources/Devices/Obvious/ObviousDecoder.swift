import ByteCursor

/// Decodes Obvious recorder-profile-v1 notifications into ``ObviousMessage``s.
///
/// Every notification on ``ObviousGATT/data`` is a record type byte and a body:
///
/// | Type | Body | Errors |
/// |---|---|---|
/// | `0x01` | N × 4: id u16 LE, enabled u8 0/1, toggle u8 0…3 | empty, length % 4 ≠ 0, enabled > 1, toggle > 3 |
/// | `0x02` | `Int64` LE version code | length ≠ 8 (an invalid code is *flagged*, see ``ObviousFirmwareVersion``) |
/// | `0x03` | u8 percent | length ≠ 1, percent > 100 |
/// | `0x04` | u8 status 0…4 | length ≠ 1, status > 4 (profile v1 defines no others) |
///
/// Any other characteristic, an empty value or another record type is an
/// ``ObviousDecodeError`` too. Decoding never traps and allocates at most the
/// feature array (bounded by the notification's length).
///
/// ```swift
/// let decoder = ObviousDecoder()
/// let message = try decoder.decode([0x02, 0x13, 0x4A, 0x0F, 0, 0, 0, 0, 0], from: ObviousGATT.data)
/// print(message) // firmwareVersion(1.2.3)
/// ```
public struct ObviousDecoder: StatelessPacketDecoder, Hashable {
    /// Decoded values are ``ObviousMessage``s.
    public typealias Value = ObviousMessage
    /// Malformed packets throw ``ObviousDecodeError``.
    public typealias Failure = ObviousDecodeError

    /// ``DeviceFamily/obvious``.
    public static let family = DeviceFamily.obvious

    /// Creates a decoder. It has no state.
    public init() {}

    /// Decodes a value notified by a characteristic.
    ///
    /// - Parameters:
    ///   - bytes: The notification's value.
    ///   - characteristic: The characteristic that notified.
    /// - Returns: The decoded message.
    /// - Throws: ``ObviousDecodeError`` when the characteristic is not
    ///   ``ObviousGATT/data`` or the value is malformed.
    public func decode(
        _ bytes: [UInt8],
        from characteristic: CharacteristicUUID
    ) throws(ObviousDecodeError) -> ObviousMessage {
        func failure(_ code: ObviousDecodeError.Code, _ message: String) -> ObviousDecodeError {
            ObviousDecodeError(
                code: code,
                characteristic: characteristic,
                length: bytes.count,
                recordType: bytes.first,
                message: message
            )
        }
        guard characteristic == ObviousGATT.data else {
            throw failure(
                .unknownCharacteristic,
                "Characteristic \(characteristic) is not the Obvious data characteristic \(ObviousGATT.data)."
            )
        }
        guard let type = bytes.first else {
            throw failure(.emptyValue, "Obvious notified an empty value; expected a record type byte and a body.")
        }
        let body = bytes.count - 1
        switch type {
        case ObviousRecordType.featureStatus.rawValue:
            guard body > 0 else {
                throw failure(.emptyFeatureStatus, "Obvious feature status (0x01) has no feature records.")
            }
            guard body % 4 == 0 else {
                throw failure(
                    .invalidFeatureStatusLength,
                    "Obvious feature status body is \(body) bytes, not a multiple of 4-byte feature records."
                )
            }
            var features: [ObviousFeatureStatus] = []
            features.reserveCapacity(body / 4)
            var cursor = ByteCursor(bytes, offset: 1)
            // The length is a multiple of 4, so every record read below fits.
            while let id = try? cursor.read(UInt16.self), let enabled = try? cursor.readByte(),
                let toggleCode = try? cursor.readByte()
            {
                let record = features.count
                guard enabled <= 1 else {
                    throw failure(
                        .invalidEnabled,
                        "Obvious feature \(id) (record \(record)) has enabled byte \(enabled); expected 0 or 1."
                    )
                }
                guard let toggle = ObviousFeatureToggle(code: toggleCode) else {
                    throw failure(
                        .invalidToggle,
                        "Obvious feature \(id) (record \(record)) has toggle \(toggleCode); expected 0…3."
                    )
                }
                features.append(ObviousFeatureStatus(featureID: id, enabled: enabled == 1, toggle: toggle))
            }
            return .featureStatus(features)
        case ObviousRecordType.firmwareVersion.rawValue:
            guard body == 8 else {
                throw failure(
                    .invalidFirmwareVersionLength,
                    "Obvious firmware version (0x02) body is \(body) bytes; expected an 8-byte Int64."
                )
            }
            var cursor = ByteCursor(bytes, offset: 1)
            guard let code = try? cursor.read(Int64.self) else {
                throw failure(.invalidFirmwareVersionLength, "Obvious firmware version (0x02) body is too short.")
            }
            return .firmwareVersion(ObviousFirmwareVersion(code: code))
        case ObviousRecordType.upgradeProgress.rawValue:
            guard body == 1 else {
                throw failure(
                    .invalidProgressLength,
                    "Obvious upgrade progress (0x03) body is \(body) bytes; expected 1 (percent)."
                )
            }
            guard bytes[1] <= 100 else {
                throw failure(.progressOutOfRange, "Obvious upgrade progress \(bytes[1]) is above 100 percent.")
            }
            return .upgradeProgress(bytes[1])
        case ObviousRecordType.upgradeStatus.rawValue:
            guard body == 1 else {
                throw failure(
                    .invalidStatusLength,
                    "Obvious upgrade status (0x04) body is \(body) bytes; expected 1 (status code)."
                )
            }
            guard let status = ObviousUpgradeStatus(code: bytes[1]) else {
                throw failure(.unknownUpgradeStatus, "Obvious upgrade status \(bytes[1]) is not one of 0…4.")
            }
            return .upgradeStatus(status)
        default:
            throw failure(
                .unknownRecordType,
                "Obvious record type \(type) is not one of 0x01…0x04 "
                    + "(feature status, firmware version, upgrade progress, upgrade status)."
            )
        }
    }
}
