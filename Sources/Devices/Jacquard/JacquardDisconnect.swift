/// The Disconnect notification payload (extension 102): the tag is about
/// to disconnect.
///
/// The `Codable` form: `{"reconnect":true}`.
///
/// ```swift
/// print(JacquardDisconnect(reconnect: true).reconnect) // true
/// ```
public struct JacquardDisconnect: Sendable, Hashable, Codable {
    /// `reconnect` (field 1): whether the tag will reconnect by itself.
    public var reconnect: Bool

    /// Creates a disconnect notification.
    ///
    /// - Parameter reconnect: Whether the tag will reconnect.
    @inlinable
    public init(reconnect: Bool) {
        self.reconnect = reconnect
    }
}
