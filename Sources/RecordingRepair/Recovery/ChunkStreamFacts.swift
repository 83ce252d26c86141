import MCAP
import Recording

/// What one chunk holds of one channel, recomputed from its messages the way
/// the writer accumulates it: the index's `chunk_streams` row for them.
/// `recover` writes it; `verify` compares the index with it.
struct ChunkStreamFacts: Equatable {
    var messageCount = 0
    var firstTime = UInt64.max
    var lastTime = UInt64.min
    /// Count, min, max and sum of the numeric values that are not NaN.
    var valueCount = 0
    var minimum: Double?
    var maximum: Double?
    var sum: Double?
    /// The values at the earliest and the latest message (for equal times,
    /// the first and the last in the chunk), when the chunk has numeric values.
    var firstValue: Double?
    var lastValue: Double?
    /// The first and the last message's sample time when the messages, in
    /// file order, are in sample order (receive times and sample times never
    /// go back, no sample time after its receive time), as the writer keeps them.
    var firstSampleTime: UInt64?
    var lastSampleTime: UInt64?

    /// The facts of `channelID`'s messages in `messages` (a chunk's, in file
    /// order); `valueOffset` is where a numeric channel's value sits in its
    /// payloads (`NumericSchemas`), `nil` for other channels.
    init(messages: [MCAPRecord.Message], channelID: UInt16, valueOffset: Int?) {
        var first: Double?
        var last: Double?
        var ordered = true
        var latestTime: UInt64 = 0
        for message in messages where message.channelID == channelID {
            let value = valueOffset.flatMap { NumericSchemas.value(at: $0, payload: message.data) }
            if messageCount == 0 {
                firstSampleTime = message.publishTime
            } else if message.publishTime < lastSampleTime ?? 0 || message.logTime < latestTime {
                ordered = false
            }
            if message.publishTime > message.logTime { ordered = false }
            lastSampleTime = message.publishTime
            latestTime = message.logTime
            messageCount += 1
            if message.logTime < firstTime {
                firstTime = message.logTime
                first = value
            }
            if message.logTime >= lastTime {
                lastTime = message.logTime
                last = value
            }
            if let value, !value.isNaN {
                valueCount += 1
                minimum = Swift.min(minimum ?? value, value)
                maximum = Swift.max(maximum ?? value, value)
                sum = (sum ?? 0) + value
            }
        }
        if !ordered {
            firstSampleTime = nil
            lastSampleTime = nil
        }
        if valueCount > 0 {
            firstValue = first.flatMap { $0.isNaN ? nil : $0 }
            lastValue = last.flatMap { $0.isNaN ? nil : $0 }
        }
    }
}
