public import Recording

/// A ``ByteSink`` that keeps the bytes in memory: for small outputs and tests.
///
/// ```swift
/// let sink = MemoryByteSink()
/// try sink.write("hello\n")
/// print(sink.bytes.count)  // 6
/// ```
///
/// Not `Sendable`: one sink belongs to one task.
public final class MemoryByteSink: ByteSink {
    /// Everything written so far.
    public private(set) var bytes: [UInt8] = []
    /// Whether ``close()`` was called.
    public private(set) var isClosed = false

    /// Creates an empty sink.
    public init() {}

    public func write(_ bytes: UnsafeRawBufferPointer) throws(RecordingError) {
        guard !isClosed else { throw RecordingError(.closed, "the memory sink is closed") }
        self.bytes.append(contentsOf: bytes)
    }

    public func close() throws(RecordingError) { isClosed = true }

    /// The bytes as UTF-8 text.
    public var text: String { String(decoding: bytes, as: UTF8.self) }
}
