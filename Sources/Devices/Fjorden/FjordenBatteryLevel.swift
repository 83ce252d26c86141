/// A Fjorden grip's battery level (2A19), 0…100 percent.
///
/// Encodes as `{"percent": 25, "isLow": true}`; `isLow` is derived.
///
/// ```swift
/// print(FjordenBatteryLevel(percent: 29).isLow) // true
/// print(FjordenBatteryLevel(percent: 30).isLow) // false
/// ```
public struct FjordenBatteryLevel: Sendable, Hashable, Codable {
    /// The level in percent, 0…100 when decoded.
    public var percent: UInt8

    /// Creates a battery level.
    ///
    /// - Parameter percent: The level in percent.
    public init(percent: UInt8) {
        self.percent = percent
    }

    /// Whether the level is below 30 percent (the SDK's low threshold).
    public var isLow: Bool { percent < 30 }

    private enum CodingKeys: String, CodingKey {
        case percent, isLow
    }

    /// Decodes `percent` (`isLow` is derived, so it is ignored).
    ///
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError` when `percent` is missing or not a `UInt8`.
    public init(from decoder: any Decoder) throws {
        percent = try decoder.container(keyedBy: CodingKeys.self).decode(UInt8.self, forKey: .percent)
    }

    /// Encodes `percent` and `isLow`.
    ///
    /// - Parameter encoder: The encoder.
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(percent, forKey: .percent)
        try container.encode(isLow, forKey: .isLow)
    }
}
