import MCAP
public import Recording

/// Where an exporter's bytes go, as they are made: a file, standard output,
/// or memory. Exporters write in pieces and never hold a whole output.
///
/// ```swift
/// let sink = try FileByteSink(creating: "ride.csv")
/// try sink.write("log_time,topic\n")
/// try sink.close()
/// ```
///
/// Implementations are classes used by one task at a time.
public protocol ByteSink: AnyObject {
    /// Appends bytes.
    ///
    /// - Throws: `RecordingError` (`.io`) when they cannot be written.
    func write(_ bytes: UnsafeRawBufferPointer) throws(RecordingError)

    /// Writes out anything buffered and releases the output. Writing after
    /// closing is an error; closing again does nothing.
    ///
    /// - Throws: `RecordingError` (`.io`) when the last bytes cannot be written.
    func close() throws(RecordingError)
}

extension ByteSink {
    /// Appends bytes.
    public func write(_ bytes: [UInt8]) throws(RecordingError) {
        try bytes.withBytes { (raw: UnsafeRawBufferPointer) throws(RecordingError) in try write(raw) }
    }

    /// Appends a string's UTF-8 bytes.
    public func write(_ text: String) throws(RecordingError) {
        var text = text
        try text.withUTF8Bytes { (raw: UnsafeRawBufferPointer) throws(RecordingError) in try write(raw) }
    }
}

extension String {
    /// Calls `body` with the string's UTF-8 bytes, with a typed error.
    fileprivate mutating func withUTF8Bytes(
        _ body: (UnsafeRawBufferPointer) throws(RecordingError) -> Void
    )
        throws(RecordingError)
    {
        let result: Result<Void, RecordingError> = withUTF8 { utf8 in
            Result(catching: { () throws(RecordingError) in try body(UnsafeRawBufferPointer(utf8)) })
        }
        try result.get()
    }
}
