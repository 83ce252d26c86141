import MCAP
public import Recording

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A ``ByteSink`` that writes a file (created new, never overwritten) or
/// standard output, through a 256 KiB buffer.
///
/// ```swift
/// let file = try FileByteSink(creating: "ride.mcap")      // fails if ride.mcap exists
/// let stdout = FileByteSink.standardOutput()
/// ```
///
/// Not `Sendable`: one sink belongs to one task.
public final class FileByteSink: ByteSink {
    /// The file's path, or `-` for standard output.
    public let path: String
    private var descriptor: Int32
    private let closesDescriptor: Bool
    private var buffer: [UInt8] = []
    private let capacity: Int
    /// Bytes written so far (buffered ones included).
    public private(set) var byteCount: UInt64 = 0

    /// Creates a new file for writing.
    ///
    /// - Parameters:
    ///   - path: The file; it must not exist.
    ///   - bufferSize: Bytes gathered before a write to the file (default 256 KiB).
    /// - Throws: `RecordingError` (`.io`, or `.notFound` for a missing
    ///   directory) when it cannot be created, for example because it exists.
    public init(creating path: String, bufferSize: Int = 1 << 18) throws(RecordingError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw RecordingError.errno("cannot create \(path)") }
        self.path = path
        self.descriptor = fd
        self.closesDescriptor = true
        self.capacity = max(1, bufferSize)
        buffer.reserveCapacity(capacity)
    }

    /// Opens an existing file to append to it (an exporter that closes
    /// files to bound how many are open reopens them this way).
    ///
    /// - Parameters:
    ///   - path: The file; it must exist.
    ///   - bufferSize: Bytes gathered before a write to the file (default 256 KiB).
    /// - Throws: `RecordingError` (`.io`, or `.notFound`) when it cannot be opened.
    public init(appendingTo path: String, bufferSize: Int = 1 << 18) throws(RecordingError) {
        let fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard fd >= 0 else { throw RecordingError.errno("cannot open \(path) to append") }
        self.path = path
        self.descriptor = fd
        self.closesDescriptor = true
        self.capacity = max(1, bufferSize)
        buffer.reserveCapacity(capacity)
    }

    private init(standardOutput: Void) {
        path = "-"
        descriptor = STDOUT_FILENO
        closesDescriptor = false
        capacity = 1 << 18
        buffer.reserveCapacity(capacity)
    }

    /// A sink that writes to standard output (closing it flushes, and leaves
    /// standard output open).
    public static func standardOutput() -> FileByteSink { FileByteSink(standardOutput: ()) }

    deinit {
        if descriptor >= 0 {
            try? flush()
            if closesDescriptor { _ = Glibc.close(descriptor) }
        }
    }

    public func write(_ bytes: UnsafeRawBufferPointer) throws(RecordingError) {
        guard descriptor >= 0 else { throw RecordingError(.closed, "\(path) is closed") }
        byteCount += UInt64(bytes.count)
        if buffer.count + bytes.count > capacity { try flush() }
        if bytes.count >= capacity {
            try writeAll(bytes)
        } else {
            buffer.append(contentsOf: bytes)
        }
    }

    public func close() throws(RecordingError) {
        guard descriptor >= 0 else { return }
        try flush()
        let fd = descriptor
        descriptor = -1
        if closesDescriptor, Glibc.close(fd) != 0 { throw RecordingError.errno("close of \(path) failed") }
    }

    /// Writes the buffer out.
    private func flush() throws(RecordingError) {
        guard !buffer.isEmpty else { return }
        try buffer.withBytes { (raw: UnsafeRawBufferPointer) throws(RecordingError) in try writeAll(raw) }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes every byte, retrying short writes and `EINTR`.
    private func writeAll(_ bytes: UnsafeRawBufferPointer) throws(RecordingError) {
        var written = 0
        while written < bytes.count {
            let result = Glibc.write(descriptor, bytes.baseAddress! + written, bytes.count - written)
            if result < 0 {
                if errno == EINTR { continue }
                throw RecordingError.errno("write to \(path == "-" ? "standard output" : path) failed")
            }
            written += result
        }
    }
}
