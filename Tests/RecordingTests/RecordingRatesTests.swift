import DeviceRecording
import Testing

@testable import Recording

/// The numbers `tlm info` and `tlm record`'s status print, from a recording's info.
@Suite struct RecordingRatesTests {
    static func stream(
        _ topic: String, kind: String = "typed", count: Int, first: UInt64? = nil, last: UInt64? = nil
    )
        -> RecordingInfo.Stream
    {
        .init(topic: topic, kind: kind, schema: "s", unit: nil, messageCount: count, firstTime: first, lastTime: last)
    }

    static func info(_ streams: [RecordingInfo.Stream], segments: [RecordingInfo.Segment] = []) -> RecordingInfo {
        RecordingInfo(
            directory: "r",
            session: .init(name: "r", source: "s", host: "h", library: "l", seed: nil, startedAt: 0, endedAt: nil),
            devices: [], streams: streams, segments: segments, losses: [])
    }

    @Test func aStreamsRateNeedsASecondOfMessages() {
        #expect(Self.stream("/a", count: 101, first: 0, last: 2_000_000_000).rate == 50)
        #expect(Self.stream("/a", count: 11, first: 0, last: 999_999_999).rate == nil)
        #expect(Self.stream("/a", count: 1, first: 0, last: 5_000_000_000).rate == nil)
        #expect(Self.stream("/a", count: 0).rate == nil)
        #expect(Self.stream("/a", count: 3, first: 5_000_000_000, last: 0).rate == nil)
    }

    @Test func segmentsCountClosedOnesAndSumUncompressedBytes() {
        let segments: [RecordingInfo.Segment] = [
            .init(
                sequence: 1, path: "000001.mcap", state: "closed", byteSize: 10, uncompressedSize: 30,
                messageCount: 1, chunkCount: 1),
            .init(
                sequence: 2, path: "000002.mcap", state: "open", byteSize: 5, uncompressedSize: 12, messageCount: 1,
                chunkCount: 1),
        ]
        let info = Self.info([], segments: segments)
        #expect(info.closedSegmentCount == 1)
        #expect(info.uncompressedSize == 42)
    }

    @Test func ratesCountTypedStreamsThatGrewFastestFirst() {
        let before = RecordingRates.Counts(
            Self.info([Self.stream("/b", count: 10), Self.stream("/a", count: 10), Self.stream("/c", count: 5)]))
        #expect(before.messages == 25)
        let now = Self.info([
            Self.stream("/b", count: 30), Self.stream("/a", count: 30), Self.stream("/c", count: 5),
            Self.stream("/raw", kind: "raw", count: 100), Self.stream("/d", count: 50),
        ])
        let rates = RecordingRates(since: before, now: now, seconds: 2)
        #expect(rates.total == (215 - 25) / 2)
        #expect(rates.streams.map(\.topic) == ["/d", "/a", "/b"])
        #expect(rates.streams.map(\.rate) == [25, 10, 10])
        #expect(RecordingRates(since: RecordingRates.Counts(), now: now, seconds: 0).streams.isEmpty)
    }
}
