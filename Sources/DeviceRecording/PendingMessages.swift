import ROS2

/// The typed messages of the notification at hand that wait for their
/// clock: each value's body encoded (after the stamp), its stream key,
/// timing and numeric value. A ``DeviceStreamRecorder`` queues them while
/// the notification decodes; a ``DeviceClockSurvey`` queues them without bodies.
struct PendingMessages {
    struct Message {
        var streamKey: Int
        var timing: SampleTiming
        var numeric: Double?
        var start: Int
        var end: Int
        /// Its sample in its clock's delivery, while every message has one clock.
        var sample: Int
    }

    var messages: [Message] = []
    var bytes: [UInt8] = []
    /// Whether a queued message has a clock other than the first's (a
    /// notification rarely holds two clocks).
    private(set) var hasSeveralClocks = false
    /// While every message has one clock, that clock's delivery (as
    /// ``delivery(startingAt:into:)`` gives it, found as messages come): the
    /// tick clock's ticks in order, and how many samples it holds.
    private(set) var ticks: [UInt64] = []
    private(set) var sampleCount = 0

    var isEmpty: Bool { messages.isEmpty }

    /// How many messages may start a delivery (``delivery(startingAt:into:)``):
    /// only the first while every message has one clock.
    var deliveryStarts: Int { hasSeveralClocks ? messages.count : min(messages.count, 1) }

    /// Queues a message whose body `encode` writes straight into `bytes`
    /// (aligned from where it starts, as behind its 8-byte stamp).
    mutating func append(streamKey: Int, timing: SampleTiming, encoding encode: (inout CDRWriter) -> Double?) {
        let start = bytes.count
        var cdr = CDRWriter(continuing: &bytes)
        let numeric = encode(&cdr)
        cdr.finish(into: &bytes)
        let sample = place(streamKey: streamKey, timing: timing)
        messages.append(
            Message(
                streamKey: streamKey, timing: timing, numeric: numeric, start: start, end: bytes.count, sample: sample))
    }

    /// Queues a message without a body (for timing only).
    mutating func append(streamKey: Int, timing: SampleTiming) {
        let sample = place(streamKey: streamKey, timing: timing)
        messages.append(
            Message(streamKey: streamKey, timing: timing, numeric: nil, start: 0, end: 0, sample: sample))
    }

    /// The sample of the message about to be queued in its clock's delivery:
    /// a tick clock's samples are its values in order; a nominal-rate
    /// clock's sample of a value is how many values of its stream came before it.
    private mutating func place(streamKey: Int, timing: SampleTiming) -> Int {
        if let first = messages.first, Self.clockKey(first.timing) != Self.clockKey(timing) { hasSeveralClocks = true }
        let sample: Int
        if case .ticks(let value, _) = timing {
            ticks.append(value)
            sample = ticks.count - 1
        } else {
            var earlier = 0
            for message in messages where message.streamKey == streamKey { earlier += 1 }
            sample = earlier
        }
        sampleCount = max(sampleCount, sample + 1)
        return sample
    }

    /// The most bytes ``layOut(_:stamp:into:)`` lays a message out in: larger ones are written apart.
    static let layOutCapacity = 128

    /// Lays `message` out whole in `staged` — the CDR encapsulation header,
    /// `stamp` as a `builtin_interfaces/Time`, the body — and returns its
    /// length; 0 when it does not fit.
    @inline(__always)
    func layOut(_ message: Message, stamp: UInt64, into staged: UnsafeMutableRawBufferPointer) -> Int {
        let count = 12 &+ (message.end &- message.start)
        guard count <= staged.count else { return 0 }
        // Little-endian CDR, no options; then the stamp's seconds and nanoseconds, each aligned to 4.
        staged.storeBytes(of: UInt32(0x0000_0100).littleEndian, toByteOffset: 0, as: UInt32.self)
        staged.storeBytes(
            of: UInt32(truncatingIfNeeded: stamp / 1_000_000_000).littleEndian, toByteOffset: 4, as: UInt32.self)
        staged.storeBytes(
            of: UInt32(truncatingIfNeeded: stamp % 1_000_000_000).littleEndian, toByteOffset: 8, as: UInt32.self)
        bytes.withUnsafeBytes { source in
            // Short bodies: a word at a time, not a call to `memmove`.
            var offset = message.start
            var target = 12
            while offset &+ 8 <= message.end {
                staged.storeBytes(
                    of: source.loadUnaligned(fromByteOffset: offset, as: UInt64.self), toByteOffset: target,
                    as: UInt64.self)
                offset &+= 8
                target &+= 8
            }
            while offset < message.end {
                staged[target] = source[offset]
                offset &+= 1
                target &+= 1
            }
        }
        return count
    }

    mutating func removeAll() {
        guard !messages.isEmpty else { return }
        messages.removeAll(keepingCapacity: true)
        if !bytes.isEmpty { bytes.removeAll(keepingCapacity: true) }
        if !ticks.isEmpty { ticks.removeAll(keepingCapacity: true) }
        sampleCount = 0
        hasSeveralClocks = false
    }

    /// The delivery of one clock in this notification, when `messages[index]`
    /// is the first value of its clock (`nil` otherwise): the clock's key
    /// and its sample count, with its ticks and each member's message index
    /// and sample in `scratch`. A tick clock's samples are its values in
    /// order; a nominal-rate clock's sample of a value is how many values of
    /// its stream came before it.
    func delivery(startingAt index: Int, into scratch: inout TimingScratch) -> (key: Int, count: Int)? {
        let key = Self.clockKey(messages[index].timing)
        // Each clock once, at its first value (a notification rarely holds
        // two clocks: the first value's is checked before the rest).
        if index > 0, Self.clockKey(messages[0].timing) == key { return nil }
        guard !messages[..<index].contains(where: { Self.clockKey($0.timing) == key }) else { return nil }
        scratch.ticks.removeAll(keepingCapacity: true)
        scratch.members.removeAll(keepingCapacity: true)
        var count = 1
        for other in index..<messages.count where Self.clockKey(messages[other].timing) == key {
            if case .ticks(let value, _) = messages[other].timing {
                scratch.ticks.append(value)
                scratch.members.append((other, scratch.ticks.count - 1))
            } else {
                // A stream has one clock, so its values' samples (``place(streamKey:timing:)``) hold here too.
                let sample = messages[other].sample
                scratch.members.append((other, sample))
                count = max(count, sample + 1)
            }
        }
        return (key, count)
    }

    static func clockKey(_ timing: SampleTiming) -> Int {
        switch timing {
        case .ticks(_, let key), .nominalRate(let key), .setsRate(_, let key): key
        case .receive: -1
        }
    }
}
