/// Decodes Fjorden recorder-profile-v1 notifications into ``FjordenValue``s.
///
/// | Characteristic | Value | Errors |
/// |---|---|---|
/// | ``FjordenGATT/event`` | code (≥ 14: `unknown`), optional repeat count (absent = 1) | length 0 or > 2, count 0 |
/// | ``FjordenGATT/batteryLevel`` (2A19) | u8 percent | length ≠ 1, percent > 100 |
/// | 180A strings (``FjordenDeviceInformation/Field``) | UTF-8 | invalid UTF-8 |
///
/// A repeat count byte of 0 is rejected: the count says how many times the
/// event happened and profile v1 has no zero-detent event. Any other
/// characteristic is ``FjordenDecodeError/Code/unknownCharacteristic``.
/// Decoding never traps; it allocates only a device-information string (at
/// most the value's length).
///
/// ```swift
/// let decoder = FjordenDecoder()
/// print(try decoder.decode([0x04, 0x03], from: FjordenGATT.event))
/// // gripEvent(Devices.FjordenGripEvent(event: dialButtonCCW, repeatCount: 3))
/// ```
public struct FjordenDecoder: StatelessPacketDecoder, Hashable {
    /// Decoded values are ``FjordenValue``s.
    public typealias Value = FjordenValue
    /// Malformed packets throw ``FjordenDecodeError``.
    public typealias Failure = FjordenDecodeError

    /// ``DeviceFamily/fjorden``.
    public static let family = DeviceFamily.fjorden

    /// Creates a decoder. It has no state.
    public init() {}

    /// Decodes a value notified by a characteristic.
    ///
    /// - Parameters:
    ///   - bytes: The notification's value.
    ///   - characteristic: The characteristic that notified.
    /// - Returns: The decoded value.
    /// - Throws: ``FjordenDecodeError`` for an unknown characteristic or a malformed value.
    public func decode(
        _ bytes: [UInt8],
        from characteristic: CharacteristicUUID
    ) throws(FjordenDecodeError) -> FjordenValue {
        // No ByteCursor here: every Fjorden value is one to two bytes judged
        // by its whole length (or UTF-8 text), with no sequential fields to read.
        func failure(_ code: FjordenDecodeError.Code, _ message: String) -> FjordenDecodeError {
            FjordenDecodeError(code: code, characteristic: characteristic, length: bytes.count, message: message)
        }
        if characteristic == FjordenGATT.event {
            guard let code = bytes.first else {
                throw failure(
                    .emptyEvent,
                    "Fjorden grip event is empty; expected an event code and an optional repeat count."
                )
            }
            guard bytes.count <= 2 else {
                throw failure(
                    .eventTooLong,
                    "Fjorden grip event is \(bytes.count) bytes; expected 1 (code) or 2 (code, repeat count)."
                )
            }
            let count = bytes.count == 2 ? bytes[1] : 1
            guard count > 0 else {
                throw failure(
                    .zeroRepeatCount,
                    "Fjorden grip event \(FjordenEventCode(code: code)) has repeat count 0; expected 1…255."
                )
            }
            return .gripEvent(FjordenGripEvent(event: FjordenEventCode(code: code), repeatCount: count))
        }
        if characteristic == FjordenGATT.batteryLevel {
            guard bytes.count == 1 else {
                throw failure(
                    .invalidBatteryLength,
                    "Fjorden battery level is \(bytes.count) bytes; expected 1 (percent)."
                )
            }
            guard bytes[0] <= 100 else {
                throw failure(.batteryOutOfRange, "Fjorden battery level \(bytes[0]) is above 100 percent.")
            }
            return .batteryLevel(FjordenBatteryLevel(percent: bytes[0]))
        }
        if let field = FjordenDeviceInformation.Field(characteristic: characteristic) {
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw failure(
                    .invalidUTF8,
                    "Fjorden device information \(field.rawValue) (\(bytes.count) bytes) is not valid UTF-8."
                )
            }
            return .deviceInformation(FjordenDeviceInformation(field: field, value: text))
        }
        throw failure(
            .unknownCharacteristic,
            "Characteristic \(characteristic) is not a Fjorden characteristic "
                + "(grip event \(FjordenGATT.event), battery level 2A19 or device information 180A)."
        )
    }
}
