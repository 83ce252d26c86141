/// The typed value of one DIoT feature record.
///
/// Built from the feature code and the four value bytes (read as a
/// little-endian `UInt32`, the record's `raw`). The raw bits are always kept,
/// so both SDK readings can be derived: ``int(_:)`` holds the iOS `UInt32`
/// reading and ``int32View`` gives the Android `Int32` reading.
///
/// ```swift
/// let value = DiotValue(feature: .temperature, raw: 0x4212_6666)
/// print(value)              // float(36.6)
/// print(value.numericValue) // 36.599998474121094
/// ```
public enum DiotValue: Sendable, Hashable {
    /// An IEEE-754 binary32 value.
    case float(Float)
    /// An unsigned 32-bit integer (the iOS SDK's reading).
    case int(UInt32)
    /// A flag: `true` exactly when the first value byte is `0x01`.
    case bool(Bool)
    /// Unix seconds.
    case date(UInt32)
    /// A value whose feature code has no known type (code 0 or a code
    /// outside the table), kept with its raw bits.
    case unknown(code: UInt8, raw: UInt32)

    /// Reads the four value bytes the way the feature's type says.
    ///
    /// - Parameters:
    ///   - feature: The record's feature code.
    ///   - raw: The four value bytes read as a little-endian `UInt32`.
    @inlinable
    public init(feature: DiotFeature, raw: UInt32) {
        switch feature.valueType {
        case .float: self = .float(Float(bitPattern: raw))
        case .int: self = .int(raw)
        case .bool: self = .bool(raw & 0xFF == 0x01)
        case .date: self = .date(raw)
        case nil: self = .unknown(code: feature.rawValue, raw: raw)
        }
    }

    /// The value as a `Double`: the recorder's numeric view.
    ///
    /// Floats are widened exactly, ints and dates (seconds) converted, bools
    /// are 0 or 1 and unknown values give `Double(raw)`.
    @inlinable
    public var numericValue: Double {
        switch self {
        case .float(let value): Double(value)
        case .int(let value): Double(value)
        case .bool(let value): value ? 1 : 0
        case .date(let seconds): Double(seconds)
        case .unknown(_, let raw): Double(raw)
        }
    }

    /// The Android SDK's `Int32` reading of an ``int(_:)`` value (same bits),
    /// or `nil` for other cases.
    ///
    /// `DiotValue.int(0xFFFF_FFFF).int32View` is `-1`.
    @inlinable
    public var int32View: Int32? {
        if case .int(let value) = self { Int32(bitPattern: value) } else { nil }
    }

    /// The canonical four value bytes (as a little-endian `UInt32`) that
    /// encode this value: the float's bit pattern, the integer, `1` or `0`
    /// for a bool, the seconds, or an unknown value's raw bits.
    ///
    /// A decoded bool keeps only its meaning: a record whose raw value was
    /// `0x02` decodes as `false`, whose canonical raw is `0`. Use
    /// ``DiotRecord/raw`` for the bytes that were actually sent.
    @inlinable
    public var raw: UInt32 {
        switch self {
        case .float(let value): value.bitPattern
        case .int(let value): value
        case .bool(let value): value ? 1 : 0
        case .date(let seconds): seconds
        case .unknown(_, let raw): raw
        }
    }

    /// The value's type, or `nil` for ``unknown(code:raw:)``.
    @inlinable
    public var valueType: DiotValueType? {
        switch self {
        case .float: .float
        case .int: .int
        case .bool: .bool
        case .date: .date
        case .unknown: nil
        }
    }
}
