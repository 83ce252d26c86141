/// The event code in byte 0 of a Fjorden grip event.
///
/// Codes 0…13 are named; 14 and above are kept as ``unknown(_:)``, never
/// dropped. Encodes as its name: `"dialButtonCW"`, or `"unknown(14)"`.
///
/// ```swift
/// print(FjordenEventCode(code: 3))  // dialButtonCW
/// print(FjordenEventCode(code: 20)) // unknown(20)
/// ```
public enum FjordenEventCode: Sendable, Hashable, Codable, CustomStringConvertible {
    /// 0: the shutter button is fully pressed.
    case shutterButtonDown
    /// 1: the shutter button is released.
    case shutterButtonReleased
    /// 2: the shutter button is half pressed (focus).
    case shutterButtonHalfDown
    /// 3: the dial turned clockwise (repeat count = detents).
    case dialButtonCW
    /// 4: the dial turned counter-clockwise (repeat count = detents).
    case dialButtonCCW
    /// 5: the dial button was pressed.
    case dialButtonPress
    /// 6: the dial button was long-pressed.
    case dialButtonLongPress
    /// 7: the fn button was pressed.
    case fnButtonPress
    /// 8: the fn button was long-pressed.
    case fnButtonLongPress
    /// 9: the zoom lever is held left.
    case zoomLeverHoldLeft
    /// 10: the zoom lever is held right.
    case zoomLeverHoldRight
    /// 11: the zoom lever was pushed left.
    case zoomLeverLeft
    /// 12: the zoom lever was pushed right.
    case zoomLeverRight
    /// 13: the zoom lever returned to neutral.
    case zoomLeverNeutral
    /// A code of 14 or more, not defined by profile v1.
    case unknown(UInt8)

    /// The named codes 0…13, in code order.
    public static let named: [FjordenEventCode] = (0...13).map { FjordenEventCode(code: $0) }

    /// The event for a wire code; 14 and above give ``unknown(_:)``.
    ///
    /// - Parameter code: Byte 0 of the event.
    public init(code: UInt8) {
        switch code {
        case 0: self = .shutterButtonDown
        case 1: self = .shutterButtonReleased
        case 2: self = .shutterButtonHalfDown
        case 3: self = .dialButtonCW
        case 4: self = .dialButtonCCW
        case 5: self = .dialButtonPress
        case 6: self = .dialButtonLongPress
        case 7: self = .fnButtonPress
        case 8: self = .fnButtonLongPress
        case 9: self = .zoomLeverHoldLeft
        case 10: self = .zoomLeverHoldRight
        case 11: self = .zoomLeverLeft
        case 12: self = .zoomLeverRight
        case 13: self = .zoomLeverNeutral
        default: self = .unknown(code)
        }
    }

    /// The wire code.
    public var code: UInt8 {
        switch self {
        case .shutterButtonDown: 0
        case .shutterButtonReleased: 1
        case .shutterButtonHalfDown: 2
        case .dialButtonCW: 3
        case .dialButtonCCW: 4
        case .dialButtonPress: 5
        case .dialButtonLongPress: 6
        case .fnButtonPress: 7
        case .fnButtonLongPress: 8
        case .zoomLeverHoldLeft: 9
        case .zoomLeverHoldRight: 10
        case .zoomLeverLeft: 11
        case .zoomLeverRight: 12
        case .zoomLeverNeutral: 13
        case .unknown(let code): code
        }
    }

    /// The SDK's name (`"shutterButtonHalfDown"`), or `"unknown(<code>)"`.
    public var description: String {
        switch self {
        case .shutterButtonDown: "shutterButtonDown"
        case .shutterButtonReleased: "shutterButtonReleased"
        case .shutterButtonHalfDown: "shutterButtonHalfDown"
        case .dialButtonCW: "dialButtonCW"
        case .dialButtonCCW: "dialButtonCCW"
        case .dialButtonPress: "dialButtonPress"
        case .dialButtonLongPress: "dialButtonLongPress"
        case .fnButtonPress: "fnButtonPress"
        case .fnButtonLongPress: "fnButtonLongPress"
        case .zoomLeverHoldLeft: "zoomLeverHoldLeft"
        case .zoomLeverHoldRight: "zoomLeverHoldRight"
        case .zoomLeverLeft: "zoomLeverLeft"
        case .zoomLeverRight: "zoomLeverRight"
        case .zoomLeverNeutral: "zoomLeverNeutral"
        case .unknown(let code): "unknown(\(code))"
        }
    }

    /// Decodes the name form written by ``encode(to:)``.
    ///
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError.dataCorrupted` for a string that is not a name.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let name = try container.decode(String.self)
        if let named = Self.named.first(where: { $0.description == name }) {
            self = named
        } else if name.hasPrefix("unknown("), name.hasSuffix(")"),
            let code = UInt8(name.dropFirst(8).dropLast()), code >= 14
        {
            self = .unknown(code)
        } else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "\"\(name)\" is not a Fjorden event name or unknown(<14…255>)."
            )
        }
    }

    /// Encodes the ``description``.
    ///
    /// - Parameter encoder: The encoder.
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
