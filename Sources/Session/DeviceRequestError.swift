/// Why a ``DeviceRequest`` is refused: one line, as `tlm record` prints it.
public struct DeviceRequestError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong.
    public let message: String

    /// An error saying `message`.
    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
