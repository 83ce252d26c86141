/// An Obvious firmware version: an `Int64` decimal-packed as
/// `major × 1_000_000 + minor × 1_000 + patch`, each part 0…999.
///
/// Any code is kept; one that is negative or above 999_999_999 is *invalid*
/// (``isValid`` is `false`, ``components`` is `nil`) rather than an error.
/// Encodes as `{"code": 1002003, "isValid": true, "version": "1.2.3"}`
/// (`version` is absent for an invalid code).
///
/// ```swift
/// print(ObviousFirmwareVersion(code: 1_002_003))        // 1.2.3
/// print(ObviousFirmwareVersion(code: 12_034_056))       // 12.34.56
/// print(ObviousFirmwareVersion(code: 1_000_000_000).isValid) // false
/// ```
public struct ObviousFirmwareVersion: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The packed version code, as sent.
    public var code: Int64

    /// Creates a version from its packed code (valid or not).
    ///
    /// - Parameter code: The `Int64` version code.
    public init(code: Int64) {
        self.code = code
    }

    /// Creates a version from its parts.
    ///
    /// - Parameters:
    ///   - major: 0…999.
    ///   - minor: 0…999.
    ///   - patch: 0…999.
    /// - Returns: `nil` when a part is outside 0…999.
    public init?(major: Int, minor: Int, patch: Int) {
        guard (0...999).contains(major), (0...999).contains(minor), (0...999).contains(patch) else { return nil }
        code = Int64(major) * 1_000_000 + Int64(minor) * 1_000 + Int64(patch)
    }

    /// The parts, or `nil` when the code is invalid.
    public var components: (major: Int, minor: Int, patch: Int)? {
        guard code >= 0, code <= 999_999_999 else { return nil }
        let value = Int(code)
        return (value / 1_000_000, value / 1_000 % 1_000, value % 1_000)
    }

    /// Whether every part is within 0…999.
    public var isValid: Bool { components != nil }

    /// `"major.minor.patch"`, or `"invalid(<code>)"`.
    public var description: String {
        guard let parts = components else { return "invalid(\(code))" }
        return "\(parts.major).\(parts.minor).\(parts.patch)"
    }

    private enum CodingKeys: String, CodingKey {
        case code, isValid, version
    }

    /// Decodes a version from its `code` (the other keys are derived).
    ///
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError` when `code` is missing or not an integer.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        code = try container.decode(Int64.self, forKey: .code)
    }

    /// Encodes `code`, `isValid` and, when valid, `version`.
    ///
    /// - Parameter encoder: The encoder.
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(code, forKey: .code)
        try container.encode(isValid, forKey: .isValid)
        if isValid { try container.encode(description, forKey: .version) }
    }
}
