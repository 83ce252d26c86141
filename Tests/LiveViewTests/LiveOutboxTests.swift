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
        var bytes = batch.bytes
        var records: [(UInt16, UInt64, [UInt8])] = []
        while bytes.readableBytes >= LiveOutbox.recordHeaderSize {
            let channel = bytes.readInteger(endianness: .little, as: UInt16.self)
            let time = bytes.readInteger(endianness: .little, as: UInt64.self)
            let length = bytes.readInteger(endianness: .little, as: UInt32.self)
            let payload = bytes.readBytes(length: Int(length ?? 0))
            records.append((try #require(channel), try #require(time), try #require(payload)))
        }
        #expect(bytes.readableBytes == 0)
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
        #expect(batch.count == 0 && batch.dropped.isEmpty && batch.bytes.readableBytes == 0)
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
}
