/// One decoded Fjorden notification: the ``FjordenDecoder``'s `Value`.
///
/// The `Codable` form is an object with one key, the case name, holding the
/// payload's own form, for example
/// `{"gripEvent":{"event":"dialButtonCW","repeatCount":2}}` or
/// `{"batteryLevel":{"percent":25,"isLow":true}}`.
///
/// ```swift
/// let value = try FjordenDecoder().decode([0x03, 0x02], from: FjordenGATT.event)
/// print(value == .gripEvent(FjordenGripEvent(event: .dialButtonCW, repeatCount: 2))) // true
/// ```
public enum FjordenValue: Sendable, Hashable, Codable {
    /// A grip event from the event characteristic.
    case gripEvent(FjordenGripEvent)
    /// The battery level from 2A19.
    case batteryLevel(FjordenBatteryLevel)
    /// A device information string from service 180A.
    case deviceInformation(FjordenDeviceInformation)

    /// The characteristic this value is notified on.
    public var characteristic: CharacteristicUUID {
        switch self {
        case .gripEvent: FjordenGATT.event
        case .batteryLevel: FjordenGATT.batteryLevel
        case .deviceInformation(let information): information.field.characteristic
        }
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case gripEvent, batteryLevel, deviceInformation
    }

    /// Decodes the one-key form written by ``encode(to:)``.
    ///
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError` unless the object has exactly one known key.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard container.allKeys.count == 1, let key = container.allKeys.first else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: container.codingPath,
                    debugDescription: "Expected exactly one of \(CodingKeys.allCases.map(\.stringValue))."
                )
            )
        }
        switch key {
        case .gripEvent: self = .gripEvent(try container.decode(FjordenGripEvent.self, forKey: key))
        case .batteryLevel: self = .batteryLevel(try container.decode(FjordenBatteryLevel.self, forKey: key))
        case .deviceInformation:
            self = .deviceInformation(try container.decode(FjordenDeviceInformation.self, forKey: key))
        }
    }

    /// Encodes an object with the case name as its one key.
    ///
    /// - Parameter encoder: The encoder.
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .gripEvent(let event): try container.encode(event, forKey: .gripEvent)
        case .batteryLevel(let level): try container.encode(level, forKey: .batteryLevel)
        case .deviceInformation(let information): try container.encode(information, forKey: .deviceInformation)
        }
    }
}
