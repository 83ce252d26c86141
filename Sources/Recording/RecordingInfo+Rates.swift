extension RecordingInfo.Stream {
    /// Messages per second between the first and the last, when they span
    /// at least a second (a rate means little over less); `nil` otherwise.
    public var rate: Double? {
        guard let first = firstTime, let last = lastTime, last >= first, last - first >= 1_000_000_000,
            messageCount > 1
        else { return nil }
        return Double(messageCount - 1) / (Double(last - first) / 1e9)
    }
}

extension RecordingInfo {
    /// How many segments are closed.
    public var closedSegmentCount: Int { segments.filter { $0.state == "closed" }.count }

    /// The segments' chunk bytes before compression.
    public var uncompressedSize: UInt64 { segments.reduce(0) { $0.addingSaturating($1.uncompressedSize) } }
}
