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
    }

    var messages: [Message] = []
    var bytes: [UInt8] = []

    var isEmpty: Bool { messages.isEmpty }

    /// Queues a message whose body `encode` writes straight into `bytes`
    /// (aligned from where it starts, as behind its 8-byte stamp).
    mutating func append(streamKey: Int, timing: SampleTiming, encoding encode: (inout CDRWriter) -> Double?) {
        let start = bytes.count
        var cdr = CDRWriter(continuing: &bytes)
        let numeric = encode(&cdr)
        cdr.finish(into: &bytes)
        messages.append(Message(streamKey: streamKey, timing: timing, numeric: numeric, start: start, end: bytes.count))
    }

    /// Queues a message without a body (for timing only).
    mutating func append(streamKey: Int, timing: SampleTiming) {
        messages.append(Message(streamKey: streamKey, timing: timing, numeric: nil, start: 0, end: 0))
    }

    /// Lays `message` out whole in `staged` — the CDR encapsulation header,
    /// `stamp` as a `builtin_interfaces/Time`, the body — and returns its
    /// length; 0 when it does not fit (128 bytes).
    func layOut(_ message: Message, stamp: UInt64, into staged: inout PendingMessageBytes) -> Int {
        let count = 12 &+ (message.end &- message.start)
        guard count <= MemoryLayout<PendingMessageBytes>.size else { return 0 }
        withUnsafeMutableBytes(of: &staged) { raw in
            // Little-endian CDR, no options; then the stamp's seconds and nanoseconds, each aligned to 4.
            raw.storeBytes(of: UInt32(0x0000_0100).littleEndian, toByteOffset: 0, as: UInt32.self)
            raw.storeBytes(
                of: UInt32(truncatingIfNeeded: stamp / 1_000_000_000).littleEndian, toByteOffset: 4, as: UInt32.self)
            raw.storeBytes(
                of: UInt32(truncatingIfNeeded: stamp % 1_000_000_000).littleEndian, toByteOffset: 8, as: UInt32.self)
            bytes.withUnsafeBytes { source in
                // Short bodies: a word at a time, not a call to `memmove`.
                var offset = message.start
                var target = 12
                while offset &+ 8 <= message.end {
                    raw.storeBytes(
                        of: source.loadUnaligned(fromByteOffset: offset, as: UInt64.self), toByteOffset: target,
                        as: UInt64.self)
                    offset &+= 8
                    target &+= 8
                }
                while offset < message.end {
                    raw[target] = source[offset]
                    offset &+= 1
                    target &+= 1
                }
            }
        }
        return count
    }

    mutating func removeAll() {
        messages.removeAll(keepingCapacity: true)
        bytes.removeAll(keepingCapacity: true)
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
                let stream = messages[other].streamKey
                var sample = 0
                for member in scratch.members where messages[member.index].streamKey == stream {
                    sample += 1
                }
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

/// 128 bytes on the stack: a queued message laid out whole (``PendingMessages/layOut(_:stamp:into:)``).
typealias PendingMessageBytes = (
    UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
    UInt64, UInt64
)
