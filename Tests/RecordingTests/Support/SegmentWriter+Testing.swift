@testable import Recording

extension SegmentWriter {
    /// Defines the channel if this segment has not yet, then writes: what the
    /// recorder does, in one call for tests.
    func write(
        channel: SegmentChannel, sequence: UInt32, logTime: UInt64, publishTime: UInt64,
        payload: UnsafeRawBufferPointer, numericValue: Double?
    ) throws(RecordingError) -> [ClosedChunk] {
        if !isDefined(channel.id) { define(channel) }
        return try write(
            channelID: channel.id, sequence: sequence, logTime: logTime, publishTime: publishTime,
            payload: payload, numericValue: numericValue)
    }
}
