public import Recording

extension RecordingVerifier {
    /// Verifies one MCAP file on its own, without a recording's index: every
    /// record and CRC, the chunks' Message Indexes, statistics, summary and
    /// footer, as ``verify(directory:progress:)`` checks each segment.
    ///
    /// - Parameter path: The `.mcap` file.
    /// - Returns: The findings, named by `path`.
    /// - Throws: `RecordingError` when the file cannot be read.
    public static func verify(file path: String) throws(RecordingError) -> VerificationReport {
        let bytes = try RegularFile.readAll(path)
        let (findings, scan) = checkSegment(bytes, file: path)
        return VerificationReport(
            findings: findings, segments: 1, messages: scan.chunks.reduce(0) { $0 + $1.messageCount })
    }
}
