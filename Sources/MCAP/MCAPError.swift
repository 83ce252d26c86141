/// An error from reading or writing MCAP bytes.
///
/// The ``code`` says what kind of failure it is, for matching; the
/// ``message`` says what went wrong and where (a record, a field, an
/// offset); ``cause``, when there is one, is the lower-level error it wraps
/// (a byte-cursor failure, a zstd or lz4 error, the failure of a sink).
///
/// Two errors are equal when their ``code`` and ``message`` are.
public struct MCAPError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A kind of MCAP failure. New codes may be added; match with `==`.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Value: String, Sendable, Hashable {
            case corrupt, unsupported, compression, invalidConfiguration, output
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// Bytes do not match the format (bad magic, CRC, lengths, fields).
        public static let corrupt = Code(.corrupt)
        /// The bytes use a feature this library does not read.
        public static let unsupported = Code(.unsupported)
        /// A compressor (zstd, lz4) failed to set up or to compress.
        public static let compression = Code(.compression)
        /// A setting is out of range (a zstd level).
        public static let invalidConfiguration = Code(.invalidConfiguration)
        /// The writer's output refused bytes (see ``cause``).
        public static let output = Code(.output)

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

    public static func == (lhs: MCAPError, rhs: MCAPError) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
    }

    public var description: String { message }
}
