/// The final status of an Obvious firmware upgrade (body of a `0x04` record).
///
/// Codes 0…4 are named; any other code is a decode error
/// (``ObviousDecodeError/Code/unknownUpgradeStatus``), because profile v1 is
/// the project's own layout and defines no other values. Encodes as its name.
///
/// ```swift
/// print(ObviousUpgradeStatus(code: 3) == .bondCancelled) // true
/// ```
public enum ObviousUpgradeStatus: String, Sendable, Hashable, Codable, CaseIterable {
    /// `0`: the upgrade succeeded.
    case success
    /// `1`: downloading the image failed.
    case downloadFailed
    /// `2`: the upgrade failed.
    case failed
    /// `3`: the bond was cancelled.
    case bondCancelled
    /// `4`: no upgrade is available.
    case unavailable

    /// The status for a wire code, or `nil` for a code above 4.
    ///
    /// - Parameter code: The wire byte.
    public init?(code: UInt8) {
        switch code {
        case 0: self = .success
        case 1: self = .downloadFailed
        case 2: self = .failed
        case 3: self = .bondCancelled
        case 4: self = .unavailable
        default: return nil
        }
    }

    /// The wire code, 0…4.
    public var code: UInt8 {
        switch self {
        case .success: 0
        case .downloadFailed: 1
        case .failed: 2
        case .bondCancelled: 3
        case .unavailable: 4
        }
    }
}
