/// The toggle state of an Obvious feature (byte 3 of a feature status record).
///
/// Encodes as its name (`"activated"`).
///
/// ```swift
/// print(ObviousFeatureToggle(code: 3) == .activated) // true
/// print(ObviousFeatureToggle(code: 4) == nil)        // true: a decode error
/// ```
public enum ObviousFeatureToggle: String, Sendable, Hashable, Codable, CaseIterable {
    /// `0`: the toggle state is not known.
    case unknown
    /// `1`: the device does not support toggling the feature.
    case unsupported
    /// `2`: the feature is deactivated.
    case deactivated
    /// `3`: the feature is activated.
    case activated

    /// The toggle for a wire code, or `nil` for a code above 3.
    ///
    /// - Parameter code: The wire byte.
    public init?(code: UInt8) {
        switch code {
        case 0: self = .unknown
        case 1: self = .unsupported
        case 2: self = .deactivated
        case 3: self = .activated
        default: return nil
        }
    }

    /// The wire code, 0…3.
    public var code: UInt8 {
        switch self {
        case .unknown: 0
        case .unsupported: 1
        case .deactivated: 2
        case .activated: 3
        }
    }
}
