/// Encodes Fjorden values in recorder profile v1 (used by the simulator and
/// by tests); the inverse of ``FjordenDecoder``.
///
/// ```swift
/// print(FjordenEncoder.encode(FjordenGripEvent(event: .shutterButtonDown))) // [0]
/// print(FjordenEncoder.encode(FjordenGripEvent(event: .dialButtonCW, repeatCount: 4))) // [3, 4]
/// ```
public enum FjordenEncoder {
    /// The bytes of a grip event.
    ///
    /// - Parameters:
    ///   - event: The event.
    ///   - explicitRepeatCount: Whether to send the count byte when the count is 1
    ///     (a count other than 1 always has it).
    /// - Returns: 1 or 2 bytes.
    public static func encode(_ event: FjordenGripEvent, explicitRepeatCount: Bool = false) -> [UInt8] {
        event.repeatCount == 1 && !explicitRepeatCount ? [event.event.code] : [event.event.code, event.repeatCount]
    }

    /// The characteristic and bytes of any value.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - explicitRepeatCount: For a grip event, as in ``encode(_:explicitRepeatCount:)``.
    /// - Returns: The characteristic to notify on and the value's bytes
    ///   (battery: 1 byte; device information: UTF-8).
    public static func encode(
        _ value: FjordenValue,
        explicitRepeatCount: Bool = false
    ) -> (characteristic: CharacteristicUUID, bytes: [UInt8]) {
        switch value {
        case .gripEvent(let event): (FjordenGATT.event, encode(event, explicitRepeatCount: explicitRepeatCount))
        case .batteryLevel(let level): (FjordenGATT.batteryLevel, [level.percent])
        case .deviceInformation(let information): (information.field.characteristic, Array(information.value.utf8))
        }
    }
}
