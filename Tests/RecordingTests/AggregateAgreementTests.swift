import Foundation
import ROS2
import RecordingQueries
import TestSupport
import Testing

@testable import Recording

/// The index-based aggregates against a decode of every message, over a
/// recording with jittered times, gaps, equal log times and small chunks,
/// with buckets aligned to the epoch (the range starts off the grid).
@Suite struct AggregateAgreementTests {
    static let numeric = "/test/D/level"
    static let coded = "/test/D/code"
    /// The recording's first log time: not on any bucket edge.
    static let start: UInt64 = 1_795_342_503_123_456_789

    /// Two streams at about 1 kHz and 170 Hz with ±400 µs of jitter, gaps of
    /// 1.5 s and 3.2 s, and some repeated log times.
    static let recording: String = {
        var configuration = RecorderConfiguration()
        configuration.chunkSize = 2 << 10
        let directory = makeTemporaryDirectory() + "/rec"
        let recorder = try! Recorder(
            directory: directory, configuration: configuration,
            session: .init(name: "agreement", source: "simulate"), startTime: start)
        let level = try! recorder.addStream(
            StreamDescriptor(
                topic: numeric, kind: .typed, schema: MessageSchema(name: "tlm/msg/Level", text: "float64 value"),
                isNumeric: true))
        let code = try! recorder.addStream(
            StreamDescriptor(
                topic: coded, kind: .typed, schema: MessageSchema(name: "tlm/msg/Code", text: "uint32 code")))
        var generator = SplitMix64(seed: 13)
        var time = start
        var previous = start
        for index in 0..<12_000 {
            time += 1_000_000
            if index == 3_000 { time += 1_500_000_000 }
            if index == 7_500 { time += 3_200_000_000 }
            let jitter = generator.next() % 800_000
            // Every 97th message repeats the previous log time.
            let logTime = index % 97 == 0 && index > 0 ? previous : time - 400_000 + jitter
            previous = logTime
            let value = sin(Double(index) / 40) * 50 + Double(generator.next() % 1000) / 100
            var cdr = CDRWriter()
            cdr.write(value)
            try! recorder.write(level, logTime: logTime, payload: cdr.bytes, numericValue: value)
            if index % 6 == 0 {
                var other = CDRWriter()
                other.write(UInt32(index))
                try! recorder.write(code, logTime: logTime, payload: other.bytes)
            }
        }
        try! recorder.close()
        return directory
    }()

    /// Per bucket from every message: count, min, max, sum, first and last
    /// message (earliest log time, first in read order; latest, last).
    static func decodeEverything(
        topic: String, from: UInt64, to: UInt64, origin: UInt64, width: UInt64
    ) throws -> [(count: Int, min: Double?, max: Double?, sum: Double, first: RecordedMessage?, last: RecordedMessage?)]
    {
        let count = Int((to - origin + width - 1) / width)
        var buckets = [
            (count: Int, min: Double?, max: Double?, sum: Double, first: RecordedMessage?, last: RecordedMessage?)
        ](
            repeating: (0, nil, nil, 0, nil, nil), count: count)
        let reader = try RecordingReader(directory: recording)
        try reader.forEachMessage(topics: [topic], from: from, to: to) { message in
            let index = Int((message.logTime - origin) / width)
            buckets[index].count += 1
            if topic == numeric {
                let value = message.payload[4..<12].withUnsafeBytes { $0.loadUnaligned(as: Double.self) }
                buckets[index].min = Swift.min(buckets[index].min ?? value, value)
                buckets[index].max = Swift.max(buckets[index].max ?? value, value)
                buckets[index].sum += value
            }
            if buckets[index].first.map({ message.logTime < $0.logTime }) ?? true { buckets[index].first = message }
            if buckets[index].last.map({ message.logTime >= $0.logTime }) ?? true { buckets[index].last = message }
        }
        return buckets
    }

    static func value(_ message: RecordedMessage?) -> Double? {
        message.map { $0.payload[4..<12].withUnsafeBytes { $0.loadUnaligned(as: Double.self) } }
    }

    @Test(
        arguments: [
            (0, 0, 100_000_000), (0, 0, 1_000_000_000), (250_000_000, 9_000_000_000, 7_000_000),
            (1_000_000, 6_000_000_000, 60_000_000_000),
        ] as [(UInt64, UInt64, UInt64)])
    func alignedBucketsEqualADecodeOfEveryMessage(fromOffset: UInt64, toOffset: UInt64, width: UInt64) throws {
        let info = try RecordingInfo.load(from: Self.recording)
        let first = try #require(info.streams.compactMap(\.firstTime).min())
        let last = try #require(info.streams.compactMap(\.lastTime).max())
        let from = first + fromOffset
        let to = toOffset == 0 ? last + 1 : first + toOffset
        let origin = from - from % width
        let reader = try RecordingReader(directory: Self.recording)

        let (numericBuckets, numericCost) = try reader.aggregate(
            topic: Self.numeric, from: from, to: to, every: .nanoseconds(Int64(width)), origin: origin)
        let expected = try Self.decodeEverything(topic: Self.numeric, from: from, to: to, origin: origin, width: width)
        #expect(numericBuckets.count == expected.count)
        #expect(numericBuckets.reduce(0) { $0 + $1.count } > 0)
        for (index, (got, want)) in zip(numericBuckets, expected).enumerated() {
            #expect(got.start == origin + UInt64(index) * width && got.start % width == 0)
            #expect(got.count == want.count, "bucket \(index)")
            #expect(got.minimum == want.min && got.maximum == want.max, "bucket \(index)")
            #expect(got.first == Self.value(want.first) && got.last == Self.value(want.last), "bucket \(index)")
            if want.count > 0, let mean = got.mean {
                let wanted = want.sum / Double(want.count)
                #expect(abs(mean - wanted) <= 1e-9 * Swift.max(1, abs(wanted)), "bucket \(index)")
            } else {
                #expect(got.mean == nil && want.count == 0)
            }
        }
        if width >= 1_000_000_000 { #expect(numericCost.chunksFromStatistics > numericCost.chunksDecoded) }

        for topic in [Self.coded, Self.numeric] {
            let (counted, cost) = try reader.countMessages(
                topic: topic, from: from, to: to, every: .nanoseconds(Int64(width)), origin: origin,
                keepingFirstAndLast: true)
            let all = try Self.decodeEverything(topic: topic, from: from, to: to, origin: origin, width: width)
            #expect(counted.map(\.count) == all.map(\.count), "\(topic)")
            #expect(counted.map(\.first) == all.map(\.first), "\(topic)")
            #expect(counted.map(\.last) == all.map(\.last), "\(topic)")
            let (countsOnly, countCost) = try reader.countMessages(
                topic: topic, from: from, to: to, every: .nanoseconds(Int64(width)), origin: origin)
            #expect(countsOnly.map(\.count) == all.map(\.count), "\(topic)")
            #expect(countsOnly.allSatisfy { $0.first == nil && $0.last == nil })
            #expect(countCost.chunksDecoded <= cost.chunksDecoded)
            if width >= 1_000_000_000 {
                #expect(countCost.chunksFromStatistics > countCost.chunksDecoded, "\(topic): \(countCost)")
            }
        }
    }

    @Test func aFirstBucketBeforeTheRangeHoldsOnlyTheRange() throws {
        let reader = try RecordingReader(directory: Self.recording)
        let from = Self.start + 500_000_000
        let origin = from - from % 1_000_000_000
        let (buckets, _) = try reader.countMessages(
            topic: Self.numeric, from: from, to: from + 2_000_000_000, every: .seconds(1), origin: origin)
        let expected = try reader.messages(topics: [Self.numeric], from: from, to: origin + 1_000_000_000).count
        #expect(buckets.first?.start == origin && buckets.first?.count == expected)
        #expect(buckets.last?.end == from + 2_000_000_000)
        #expect(throws: RecordingError.self) {
            _ = try reader.countMessages(
                topic: Self.numeric, from: from, to: from + 1, every: .seconds(1), origin: origin - 1_000_000_000)
        }
        #expect(try reader.isNumericStream(Self.numeric) && !(try reader.isNumericStream(Self.coded)))
    }
}
