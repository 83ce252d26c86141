/// Why a capture file cannot be read (or read further): a clear message
/// naming the file and, where it helps, the byte offset.
///
/// ```swift
/// do { _ = try CaptureFileReader(path: "x.log") } catch { print(error) }
/// // x.log: not a btsnoop, pcapng or pcap file (it starts with 7b 22 61 22)
/// ```
public struct CaptureFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: String, Sendable, Hashable {
        /// The file cannot be opened or read.
        case io
        /// The file is none of the formats this build reads.
        case unknownFormat
        /// The format is known but this version or link type is not.
        case unsupported
        /// The file breaks its format's structure (a bad length, a block that does not close).
        case malformed
        /// A `--handle-map` file that cannot be used.
        case handleMap
    }

    /// What went wrong.
    public let kind: Kind
    /// The message, naming the file.
    public let message: String

    /// Creates an error.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
