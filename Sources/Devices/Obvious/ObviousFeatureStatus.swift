/// The status of one Obvious feature: a 4-byte record of a `0x01` notification.
///
/// A feature is either disabled ("locked") or enabled with a ``toggle`` state.
/// Encodes as `{"featureID": 7, "enabled": true, "toggle": "activated"}`.
///
/// ```swift
/// let status = ObviousFeatureStatus(featureID: 7, enabled: true, toggle: .activated)
/// print(status.isLocked) // false
/// ```
public struct ObviousFeatureStatus: Sendable, Hashable, Codable {
    /// The feature id (u16).
    public var featureID: UInt16
    /// Whether the feature is enabled (wire 1) or disabled/locked (wire 0).
    public var enabled: Bool
    /// The toggle state.
    public var toggle: ObviousFeatureToggle

    /// Creates a feature status.
    ///
    /// - Parameters:
    ///   - featureID: The feature id.
    ///   - enabled: Whether the feature is enabled.
    ///   - toggle: The toggle state.
    public init(featureID: UInt16, enabled: Bool, toggle: ObviousFeatureToggle) {
        self.featureID = featureID
        self.enabled = enabled
        self.toggle = toggle
    }

    /// Whether the feature is disabled ("locked" in the vendor's model).
    public var isLocked: Bool { !enabled }
}
