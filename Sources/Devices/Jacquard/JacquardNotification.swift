/// A Notification envelope without a payload the decoder knows: its
/// `domain`, `opcode` and `component_id`.
///
/// Emitted for a notification that carries no known extension (or a
/// DataChannel with neither inference nor touch data), so nothing the tag
/// sends is silently lost. The `Codable` form: `{"domain":"base","opcode":23,"component_id":0}`.
///
/// ```swift
/// let envelope = JacquardNotification(domain: .base, opcode: 23, componentID: 0)
/// print(envelope.domain) // base
/// ```
public struct JacquardNotification: Sendable, Hashable, Codable {
    /// `domain` (field 1; `base` when absent).
    public var domain: JacquardDomain
    /// `opcode` (field 2), as sent.
    public var opcode: Int32
    /// `component_id` (field 3; 0 when absent).
    public var componentID: UInt32

    /// Creates a notification envelope.
    ///
    /// - Parameters:
    ///   - domain: The domain.
    ///   - opcode: The opcode.
    ///   - componentID: The component that notified.
    @inlinable
    public init(domain: JacquardDomain, opcode: Int32, componentID: UInt32) {
        self.domain = domain
        self.opcode = opcode
        self.componentID = componentID
    }

    enum CodingKeys: String, CodingKey {
        case domain, opcode
        case componentID = "component_id"
    }
}
