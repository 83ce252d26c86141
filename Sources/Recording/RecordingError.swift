/// An error from writing or reading a recording.
///
/// The ``code`` says what kind of failure it is, for matching; the
/// ``message`` says what went wrong in words a user can act on.
///
/// ```swift
/// do {
///     _ = try RecordingInfo.load(from: "missing-dir")
/// } catch let error where error.code == .notFound {
///     print(error.message)
/// }
/// ```
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

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
