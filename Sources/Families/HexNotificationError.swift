/// Why ``HexNotifications`` cannot decode what it was given: an unreadable
/// file, a line that is not hex, an unknown family or options its decoder
/// refuses (one line, as `tlm decode` prints it).
public struct HexNotificationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong.
    public let message: String

    /// An error saying `message`.
    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
