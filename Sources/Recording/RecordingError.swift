/// An error from writing or reading a recording.
///
/// The ``code`` says what kind of failure it is, for matching; the
/// ``message`` says what went wrong in words a user can act on; ``cause``,
/// when there is one, is the lower-level error it wraps (a file system
/// error, a SQLite error from GRDB, a zstd failure, a byte-level parse
/// failure), for logs and debugging.
///
/// ```swift
/// do {
///     _ = try RecordingInfo.load(from: "missing-dir")
/// } catch let error where error.code == .notFound {
///     print(error.message)
/// }
/// ```
///
/// Two errors are equal when their ``code`` and ``message`` are: the
/// ``cause`` is not compared or hashed, since errors in general are neither.
public struct RecordingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A kind of recording failure. New codes may be added; match with `==`.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Value: String, Sendable, Hashable {
            case io, notFound, corrupt, compression, index, invalidConfiguration, closed, unsupported, busy
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// A file system call failed.
        public static let io = Code(.io)
        /// The recording, a segment or the index does not exist.
        public static let notFound = Code(.notFound)
        /// Bytes on disk do not match the format (bad magic, CRC, lengths).
        public static let corrupt = Code(.corrupt)
        /// zstd failed.
        public static let compression = Code(.compression)
        /// The SQLite index failed or holds something unexpected.
        public static let index = Code(.index)
        /// A setting is out of range.
        public static let invalidConfiguration = Code(.invalidConfiguration)
        /// The writer was used after it was closed.
        public static let closed = Code(.closed)
        /// The file uses a feature this version does not read.
        public static let unsupported = Code(.unsupported)
        /// Another process is writing the recording (it holds the recording's lock).
        public static let busy = Code(.busy)

        public var description: String { value.rawValue }
    }

    /// What kind of failure this is.
    public var code: Code
    /// What went wrong, for people.
    public var message: String
    /// The error this one wraps, or `nil` when the failure started here.
    ///
    /// Set where a recording error reports another one: `errno` of a failed
    /// file system call (as a Foundation `POSIXError`), a GRDB `DatabaseError`,
    /// a zstd error, a malformed MCAP or CDR field, or an inner
    /// `RecordingError` given more context (a chunk's offset). Its type is
    /// not part of the API contract; match on ``code`` instead.
    ///
    /// ```swift
    /// do {
    ///     _ = try RecordingReader(directory: "broken")
    /// } catch {
    ///     print(error.message, error.cause.map { "(\($0))" } ?? "")
    /// }
    /// ```
    public var cause: (any Error & Sendable)?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: What kind of failure it is.
    ///   - message: What went wrong, for people.
    ///   - cause: The lower-level error this one wraps, if any.
    public init(_ code: Code, _ message: String, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    public static func == (lhs: RecordingError, rhs: RecordingError) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
    }

    public var description: String { message }
}
