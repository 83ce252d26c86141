import LiveView
import NIOCore
import Testing

/// The recording thread's side of the live view: what it keeps, what it
/// drops and counts, and when it asks for the event loop.
struct LiveOutboxTests {
    private static func append(_ outbox: LiveOutbox, channel: UInt16, time: UInt64, _ bytes: [UInt8]) -> LiveOutbox.Wake
    {
        bytes.withUnsafeBytes { outbox.append(channelID: channel, logTime: time, payload: $0) }
    }

    @Test func aFullOutboxCountsEachDropForItsChannelAndKeepsWhatFitInOrder() throws {
        let outbox = LiveOutbox(capacity: 3, wakeCount: 100)
        outbox.listening = true
        #expect(Self.append(outbox, channel: 2, time: 10, [1, 2, 3]) == .later)
        #expect(Self.append(outbox, channel: 300, time: 11, []) == .none)
        #expect(Self.append(outbox, channel: 2, time: 12, [9]) == .none)
        // Full: these are dropped and counted per channel (300 and 2; 7 never seen before).
        for (channel, time) in [(300, 13), (2, 14), (300, 15), (7, 16)] as [(UInt16, UInt64)] {
            #expect(Self.append(outbox, channel: channel, time: time, [0xFF]) == .none)
        }
        let batch = outbox.take()
        #expect(batch.count == 3)
        #expect(batch.dropped.count == 301)
        #expect(batch.dropped[2] == 1 && batch.dropped[7] == 1 && batch.dropped[300] == 2)
        #expect(batch.dropped.reduce(0, +) == 4)
        // The records: channel id, log time, length (little-endian), payload.
        let records = Self.records(of: batch)
        #expect(batch.withRecords(\.count) == records.reduce(0) { $0 + LiveOutbox.recordHeaderSize + $1.2.count })
        #expect(records.map(\.0) == [2, 300, 2])
        #expect(records.map(\.1) == [10, 11, 12])
        #expect(records.map(\.2) == [[1, 2, 3], [], [9]])

        // The next batch starts empty, with no drops.
        #expect(Self.append(outbox, channel: 2, time: 20, [5]) == .none)  // the interval's timer is still set
        let next = outbox.take()
        #expect(next.count == 1 && next.dropped.isEmpty)
    }

    @Test func nothingIsKeptOrCountedWhileNoClientListens() {
        let outbox = LiveOutbox(capacity: 1, wakeCount: 1)
        for time in 0..<5 as Range<UInt64> { #expect(Self.append(outbox, channel: 1, time: time, [1]) == .none) }
        let batch = outbox.take()
        #expect(batch.count == 0 && batch.dropped.isEmpty && batch.byteCount == 0)
    }

    @Test func theEventLoopIsWokenAtOnceWhenTheWakeCountWaits() {
        let outbox = LiveOutbox(capacity: 100, wakeCount: 3)
        outbox.listening = true
        #expect(Self.append(outbox, channel: 1, time: 0, [1]) == .later)
        #expect(Self.append(outbox, channel: 1, time: 1, [1]) == .none)
        #expect(Self.append(outbox, channel: 1, time: 2, [1]) == .now)
        #expect(outbox.take().count == 3)
        // The timer set for the first batch is still pending: it takes the next one.
        #expect(Self.append(outbox, channel: 1, time: 3, [1]) == .none)
        outbox.timerFired()
        #expect(outbox.take().count == 1)
        #expect(Self.append(outbox, channel: 1, time: 4, [1]) == .later)
    }

    @Test func aClockTickIsARecordOfItsOwnNeverADropAndWaitsForTheNextClientWhileNoneListens() {
        let outbox = LiveOutbox(capacity: 2, wakeCount: 100)
        // No client: the last tick is kept for the next one, nothing is queued.
        #expect(outbox.appendTime(5) == .none && outbox.appendTime(6) == .none)
        #expect(outbox.take().count == 0)
        #expect(outbox.takeParkedTime() == 6 && outbox.takeParkedTime() == nil)
        outbox.listening = true
        #expect(outbox.appendTime(10) == .later)
        #expect(Self.append(outbox, channel: 3, time: 10, [7]) == .none)
        // Full: the tick is not kept and not counted, but is the batch's clock.
        #expect(outbox.appendTime(11) == .none)
        let batch = outbox.take()
        #expect(batch.count == 2 && batch.dropped.isEmpty && batch.time == 11)
        // The tick's record: channel 0, its time, the length marker, no payload; then the message.
        var bytes = batch.withRecords { ByteBuffer(bytes: $0) }
        #expect(bytes.readInteger(endianness: .little, as: UInt16.self) == 0)
        #expect(bytes.readInteger(endianness: .little, as: UInt64.self) == 10)
        #expect(bytes.readInteger(endianness: .little, as: UInt32.self) == LiveOutbox.timeRecordLength)
        #expect(bytes.readInteger(endianness: .little, as: UInt16.self) == 3)
        #expect(bytes.readableBytes == 8 + 4 + 1)
        #expect(outbox.take().time == nil)
    }

    /// The records of a batch, decoded.
    private static func records(of batch: LiveOutbox.Batch) -> [(UInt16, UInt64, [UInt8])] {
        var bytes = batch.withRecords { ByteBuffer(bytes: $0) }
        var records: [(UInt16, UInt64, [UInt8])] = []
        while let channel = bytes.readInteger(endianness: .little, as: UInt16.self),
            let time = bytes.readInteger(endianness: .little, as: UInt64.self),
            let length = bytes.readInteger(endianness: .little, as: UInt32.self),
            let payload = bytes.readBytes(length: Int(length))
        {
            records.append((channel, time, payload))
        }
        return records
    }

    @Test func aBatchLargerThanTheBlockGrowsItAndKeepsEveryRecordAndTheNextBatchFitsAgain() {
        let outbox = LiveOutbox(capacity: 1_000, wakeCount: 1_000)
        outbox.listening = true
        // 40 payloads of 5,000 bytes: three times the first block, so it grows twice mid-batch.
        let payloads = (0..<40).map { index in [UInt8](repeating: UInt8(index), count: 5_000) }
        for (index, payload) in payloads.enumerated() {
            _ = Self.append(outbox, channel: UInt16(index % 3), time: UInt64(index), payload)
        }
        let batch = outbox.take()
        #expect(batch.count == 40)
        let records = Self.records(of: batch)
        #expect(records.map(\.0) == (0..<40).map { UInt16($0 % 3) })
        #expect(records.map(\.1) == (0..<40).map { UInt64($0) })
        #expect(records.map(\.2) == payloads)
        outbox.recycle(batch)
        // The recycled block is reused for a batch as large, and one larger still grows it.
        for index in 0..<60 { _ = Self.append(outbox, channel: 9, time: UInt64(100 + index), payloads[index % 40]) }
        let next = outbox.take()
        #expect(Self.records(of: next).map(\.1) == (0..<60).map { UInt64(100 + $0) })
        #expect(Self.records(of: next).map(\.2) == (0..<60).map { payloads[$0 % 40] })
    }
}
