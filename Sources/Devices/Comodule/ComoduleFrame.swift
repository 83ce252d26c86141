/// One decoded Comodule property-stream notification: a property value, a
/// write acknowledgement or an error for a property.
///
/// Encodes as, for example,
/// `{"kind": "value", "index": 1, "identifier": "speed", "unit": "kilometer_per_hour",
/// "value": {"type": "range", "value": 25}}`.
///
/// ```swift
/// let frame = try ComoduleDecoder().decode([0x01, 0x01, 0x00, 0x02, 0xFA, 0x00], from: ComoduleGATT.propertyStream)
/// print(frame.identifier, frame.value!) // speed 25.0
/// ```
public struct ComoduleFrame: Sendable, Hashable, Codable {
    /// The frame type (byte 0).
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// `0x01`: the property's current value.
        case value
        /// `0x02`: a write was acknowledged; the value is the value written.
        case writeAcknowledged
        /// `0x03`: an error for the property; the value is an error code.
        case error

        /// The kind for a wire code, or `nil` for anything but 1…3.
        ///
        /// - Parameter code: Byte 0 of the frame.
        public init?(code: UInt8) {
            switch code {
            case 1: self = .value
            case 2: self = .writeAcknowledged
            case 3: self = .error
            default: return nil
            }
        }

        /// The wire code, 1…3.
        public var code: UInt8 {
            switch self {
            case .value: 1
            case .writeAcknowledged: 2
            case .error: 3
            }
        }
    }

    /// The frame type.
    public var kind: Kind
    /// The property index.
    public var index: UInt16
    /// The property's identifier, from the table.
    public var identifier: String
    /// The property's unit identifier, from the table (`""` for none).
    public var unit: String
    /// The value, for `value` and `writeAcknowledged` frames; `nil` for errors.
    public var value: ComodulePropertyValue?
    /// The error code (the value bytes read unsigned), for `error` frames only.
    public var errorCode: UInt64?

    /// Creates a frame.
    ///
    /// - Parameters:
    ///   - kind: The frame type.
    ///   - index: The property index.
    ///   - identifier: The property identifier.
    ///   - unit: The unit identifier.
    ///   - value: The value (value and write-acknowledged frames).
    ///   - errorCode: The error code (error frames).
    public init(
        kind: Kind,
        index: UInt16,
        identifier: String,
        unit: String,
        value: ComodulePropertyValue? = nil,
        errorCode: UInt64? = nil
    ) {
        self.kind = kind
        self.index = index
        self.identifier = identifier
        self.unit = unit
        self.value = value
        self.errorCode = errorCode
    }
}
