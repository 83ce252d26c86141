/// Why a live view could not be served.
public struct LiveViewError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public enum Kind: String, Sendable, Hashable {
        /// A `[HOST:]PORT` address that does not parse.
        case invalidAddress
        /// The address could not be bound (in use, not local, not permitted).
        case bind
        /// The recording to play could not be read.
        case recording
    }

    /// The kind of failure.
    public var kind: Kind
    /// One line saying what went wrong.
    public var message: String

    /// An error of `kind` saying `message`.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
