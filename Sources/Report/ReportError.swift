/// Why a report could not be made: a clear message for the user.
public struct ReportError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, in one line.
    public let message: String

    /// Creates an error with a message.
    public init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}
