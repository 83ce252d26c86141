/// An error from a ROS 2 message definition or a CDR payload.
///
/// The ``code`` says what kind of failure it is; the ``message`` names the
/// definition line or the field; ``cause`` is the byte-cursor failure
/// behind a short payload, when there is one.
public struct CDRError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A kind of CDR failure. New codes may be added; match with `==`.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Value: String, Sendable, Hashable {
            case corrupt, unsupported
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// A payload does not match its definition (short, no CDR header).
        public static let corrupt = Code(.corrupt)
        /// A definition uses what this library does not decode (nested types).
        public static let unsupported = Code(.unsupported)

        public var description: String { value.rawValue }
    }

    /// What kind of failure this is.
    public var code: Code
    /// What went wrong, for people.
    public var message: String
    /// The error this one wraps, or `nil` when the failure started here.
    public var cause: (any Error & Sendable)?

    /// Creates an error.
    public init(_ code: Code, _ message: String, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    public static func == (lhs: CDRError, rhs: CDRError) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
    }

    public var description: String { message }
}
