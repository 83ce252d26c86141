/// Messages in sample-time order across topics (``MessageTime/sample``),
/// read in bounded memory: a k-way merge of one log-ordered cursor per
/// stamped topic and one for all other topics.
///
/// Within one topic both times increase, so a topic's messages in log-time
/// order are in sample-time order too: the merge holds one message per
/// cursor, and each cursor holds only the chunks it is reading, whatever the
/// recording's length. A stamped topic's messages are selected by sample
/// time, `from <= publishTime < to`, exactly: a sample time is never after
/// its receive time, so its cursor starts at the log time `from`, and it
/// stops at the first message whose sample time reaches `to` (every later
/// one's is later still). Other topics are selected by log time.
///
/// Both promises are checked as the messages come: a sample time after its
/// receive time, or one that goes back within a topic, stops the read with
/// an error (`.corrupt`) that names the message, never a silent misorder.
///
/// ```swift
/// let context = try source.exportContext(topics: source.topics)
/// let cursor = try source.messageCursor(topics: context.topics, time: .sample)
/// while let message = try cursor.next() { print(message.publishTime, message.topic) }
/// ```
///
/// Not `Sendable`: it reads through its cursors' readers.
public final class SampleOrderedCursor: RecordedMessageCursor {
    /// One cursor of the merge: a stamped topic's, or the one of every other topic.
    private struct Input {
        var cursor: any RecordedMessageCursor
        /// Whether its messages are ordered and selected by sample time.
        var stamped: Bool
        /// The previous sample time handed on, to check that it does not go back.
        var last: UInt64 = 0
        /// Whether the cursor passed the range's end (a stamped one stops early).
        var done = false
    }

    /// A cursor's next message's place in the merge (the message itself
    /// waits in ``SampleOrderedCursor/heads``, so that the heap moves no
    /// reference-counted fields).
    private struct Head: MergeOrdered {
        let time: UInt64
        let logTime: UInt64
        let input: Int

        /// The merge's order: the time, then the receive time, then the cursor's place.
        func precedes(_ other: Head) -> Bool {
            (time, logTime, input) < (other.time, other.logTime, other.input)
        }
    }

    private var inputs: [Input]
    private let lower: UInt64
    private let upper: UInt64
    /// The time the merge orders by.
    private let order: MessageTime
    /// The cursors' next messages as a binary min-heap; `nil` before the first call.
    private var heap: [Head]?
    /// Each cursor's next message, the one its ``Head`` in the heap places.
    private var heads: [RecordedMessage?]

    /// Opens the cursors of a read of `topics` in `mode` (``MessageTime``).
    ///
    /// - Parameters:
    ///   - topics: The topics.
    ///   - stamped: The topics (of all, or of `topics`) that carry a sample time (`ExportTopic.hasSampleTime`).
    ///   - from: Earliest time in `mode` (inclusive); `nil` for the start.
    ///   - to: Latest time in `mode` (exclusive); `nil` for the end.
    ///   - mode: The time that selects, and orders unless `order` is given.
    ///   - order: The time that orders, when not `mode` (an MCAP file is
    ///     written in log-time order whatever selects its messages).
    ///   - open: Opens a log-ordered cursor of some topics over a log-time range.
    /// - Returns: A cursor in that order: the log-ordered one itself
    ///   for ``MessageTime/receive``, or when no topic is stamped.
    /// - Throws: What `open` throws.
    package static func open(
        topics: [String], stamped: Set<String>, from: UInt64?, to: UInt64?, mode: MessageTime,
        order: MessageTime? = nil,
        _ open: (_ topics: [String], _ from: UInt64?, _ to: UInt64?) throws(RecordingError) -> any RecordedMessageCursor
    ) throws(RecordingError) -> any RecordedMessageCursor {
        let sampled = mode == .sample ? Array(Set(topics).intersection(stamped)).sorted() : []
        guard !sampled.isEmpty else { return try open(topics, from, to) }
        let others = topics.filter { !stamped.contains($0) }
        var inputs: [Input] = []
        if !others.isEmpty { inputs.append(Input(cursor: try open(others, from, to), stamped: false)) }
        for topic in sampled { inputs.append(Input(cursor: try open([topic], from, nil), stamped: true)) }
        return SampleOrderedCursor(inputs: inputs, from: from ?? 0, to: to ?? .max, order: order ?? mode)
    }

    private init(inputs: [Input], from: UInt64, to: UInt64, order: MessageTime) {
        self.inputs = inputs
        self.heads = Array(repeating: nil, count: inputs.count)
        self.lower = from
        self.upper = to
        self.order = order
    }

    /// The next message in sample-time order, or `nil` after the last.
    ///
    /// - Throws: `RecordingError` from reading, or `.corrupt` when a stamped
    ///   message's sample time is after its receive time or before the
    ///   previous one of its topic.
    public func next() throws(RecordingError) -> RecordedMessage? {
        // Taken out while it changes, so that it is not copied.
        var heap: [Head]
        if let taken = self.heap.take() { heap = taken } else { heap = try start() }
        defer { self.heap = heap }
        guard !heap.isEmpty else { return nil }
        let first = heap[0]
        let message = heads[first.input].take()
        let following: Head?
        do {
            following = try pull(first.input)
        } catch {
            heads[first.input] = message
            throw error
        }
        if let following {
            heap[0] = following
        } else {
            heap.swapAt(0, heap.count - 1)
            heap.removeLast()
        }
        heap.mergeHeapSiftDown(0)
        return message
    }

    /// The heap of every cursor's first message.
    private func start() throws(RecordingError) -> [Head] {
        var heap: [Head] = []
        for input in inputs.indices {
            guard let head = try pull(input) else { continue }
            heap.append(head)
            heap.mergeHeapSiftUp(heap.count - 1)
        }
        return heap
    }

    /// Checks a stamped message's sample time against the promises above:
    /// not after its receive time, not before its topic's previous one.
    ///
    /// - Parameters:
    ///   - sampleTime: Its sample time (`publish_time`).
    ///   - logTime: Its receive time.
    ///   - previous: The sample time of its topic's previous message (0 for the first).
    ///   - topic: Its topic, for the error.
    ///   - sequence: Its sequence number, for the error.
    /// - Throws: `RecordingError` (`.corrupt`) naming the message when either is broken.
    @inline(__always)
    package static func check(
        sampleTime: UInt64, logTime: UInt64, after previous: UInt64, topic: @autoclosure () -> String,
        sequence: UInt32
    ) throws(RecordingError) {
        guard sampleTime <= logTime else {
            throw RecordingError(
                .corrupt,
                "\(topic()) message \(sequence): its sample time (publish_time \(sampleTime)) is after "
                    + "its receive time (log_time \(logTime)); read it with --time receive")
        }
        guard sampleTime >= previous else {
            throw RecordingError(
                .corrupt,
                "\(topic()) message \(sequence): its sample time (publish_time \(sampleTime)) is before "
                    + "the previous message's (\(previous)); read it with --time receive")
        }
    }

    /// The next message of a cursor in the range, checked, kept in ``heads``;
    /// `nil` when it has no more.
    private func pull(_ index: Int) throws(RecordingError) -> Head? {
        while !inputs[index].done, let message = try inputs[index].cursor.next() {
            guard inputs[index].stamped else {
                heads[index] = message
                return Head(time: message.logTime, logTime: message.logTime, input: index)
            }
            let time = message.publishTime
            try Self.check(
                sampleTime: time, logTime: message.logTime, after: inputs[index].last, topic: message.topic,
                sequence: message.sequence)
            inputs[index].last = time
            if time >= upper {
                inputs[index].done = true
                return nil
            }
            if time >= lower {
                let head = Head(time: order.of(message, stamped: true), logTime: message.logTime, input: index)
                heads[index] = message
                return head
            }
        }
        return nil
    }
}
