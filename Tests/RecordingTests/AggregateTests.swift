import Devices
import Families
import Foundation
import ROS2
import TestSupport
import Testing

@testable import Recording
@testable import RecordingQueries

@Suite struct AggregateTests {
    /// A numeric stream over many chunks: value i at time 1_000 + i × 1_000 ns.
    static func makeRecording(count: Int = 20_000) throws -> (String, String) {
        var configuration = RecorderConfiguration()
        configuration.chunkSize = 8 << 10
        let directory = makeTemporaryDirectory() + "/rec"
        let recorder = try Recorder(
            directory: directory, configuration: configuration,
            session: .init(name: "agg", source: "simulate"), startTime: 0)
        let stream = try recorder.addStream(
            StreamDescriptor(
                topic: "/diot/D/acc_x", kind: .typed,
                schema: DiotEvent.sampleSchema, isNumeric: true))
        let other = try recorder.addStream(
            StreamDescriptor(
                topic: "/diot/D/acc_y", kind: .typed,
                schema: DiotEvent.sampleSchema, isNumeric: true))
        for index in 0..<count {
            let value = Float(sin(Double(index) / 50) * 100)
            let event = DiotEvent.record(
                DiotRecord(channel: DiotChannel(1)!, index: 0, feature: .accX, raw: value.bitPattern))
            var cdr = CDRWriter()
            let numeric = event.encode(into: &cdr)
            try recorder.write(
                index % 5 == 4 ? other : stream, logTime: 1_000 + UInt64(index) * 1_000,
                payload: cdr.bytes, numericValue: numeric)
        }
        try recorder.close()
        return (directory, "/diot/D/acc_x")
    }

    /// The same aggregates computed from every message.
    static func bruteForce(
        _ directory: String, topic: String, from: UInt64, to: UInt64, every: UInt64
    ) throws -> [AggregateBucket] {
        let messages = try RecordingReader(directory: directory).messages(topics: [topic], from: from, to: to)
        var accumulators = [BucketAccumulator](repeating: .init(), count: Int((to - from + every - 1) / every))
        for message in messages {
            let value = NumericSchemas.value(
                at: NumericSchemas.valueOffset(schemaText: DiotEvent.sampleSchema.text)!, payload: message.payload)!
            accumulators[Int((message.logTime - from) / every)].add(time: message.logTime, value: value)
        }
        return accumulators.enumerated().map {
            $1.bucket(start: from + UInt64($0) * every, end: min(to, from + UInt64($0 + 1) * every))
        }
    }

    @Test(
        arguments: [
            (0, 20_001_000, 1_000_000), (3_333, 15_000_000, 250_000), (1_000, 20_001_000, 7_000_000),
            (5_000_500, 5_100_500, 10_000),
        ] as [(UInt64, UInt64, UInt64)])
    func bucketsEqualTheBruteForceResult(from: UInt64, to: UInt64, every: UInt64) throws {
        let (directory, topic) = try Self.makeRecording()
        let reader = try RecordingReader(directory: directory)
        let (buckets, _) = try reader.aggregate(topic: topic, from: from, to: to, every: .nanoseconds(Int64(every)))
        let expected = try Self.bruteForce(directory, topic: topic, from: from, to: to, every: every)
        #expect(buckets.count == expected.count)
        for (got, want) in zip(buckets, expected) {
            #expect(got.count == want.count && got.minimum == want.minimum && got.maximum == want.maximum)
            #expect(got.first == want.first && got.last == want.last)
            if let mean = got.mean, let wanted = want.mean {
                #expect(abs(mean - wanted) <= 1e-9 * max(1, abs(wanted)), "\(mean) vs \(wanted)")
            } else {
                #expect(got.mean == nil && want.mean == nil)
            }
        }
    }

    @Test func wideBucketsUseTheIndexAndReadOnlyBoundaryChunks() throws {
        let (directory, topic) = try Self.makeRecording()
        let reader = try RecordingReader(directory: directory)
        let (buckets, cost) = try reader.aggregate(topic: topic, from: 0, to: 20_001_000, every: .milliseconds(5))
        #expect(buckets.count == 5)
        #expect(buckets.reduce(0) { $0 + $1.count } == 16_000)
        #expect(cost.chunksFromStatistics > 10 * cost.chunksDecoded)
        #expect(cost.chunksDecoded <= 4)  // at most the chunks straddling the 4 inner boundaries
        #expect(reader.chunksRead == cost.chunksDecoded)
    }

    @Test func aNonNumericOrUnknownStreamIsAClearError() throws {
        let (directory, _) = try Self.makeRecording(count: 100)
        let reader = try RecordingReader(directory: directory)
        #expect(throws: RecordingError.self) {
            _ = try reader.aggregate(topic: "/nope", from: 0, to: 10, every: .seconds(1))
        }
        #expect(throws: RecordingError.self) {
            _ = try reader.aggregate(topic: "/diot/D/acc_x", from: 10, to: 5, every: .seconds(1))
        }
    }

    /// A pipeline's derived streams (`tlm/msg/DerivedValue`: header, float64)
    /// aggregate like device streams, straddling chunks decoded.
    @Test func derivedValueStreamsAggregate() throws {
        var configuration = RecorderConfiguration()
        configuration.chunkSize = 4 << 10
        let directory = makeTemporaryDirectory() + "/rec"
        let recorder = try Recorder(
            directory: directory, configuration: configuration,
            session: .init(name: "derived", source: "simulate"), startTime: 0)
        let schema = MessageSchema(name: "tlm/msg/DerivedValue", text: "float64 value")
        let stream = try recorder.addStream(
            StreamDescriptor(
                topic: "/derived/m", kind: .typed, schema: schema,
                isNumeric: true))
        for index in 0..<5_000 {
            var cdr = CDRWriter()
            cdr.write(Double(index % 100))
            try recorder.write(
                stream, logTime: UInt64(index) * 1_000, payload: cdr.bytes, numericValue: Double(index % 100))
        }
        try recorder.close()
        let (buckets, _) = try RecordingReader(directory: directory)
            .aggregate(topic: "/derived/m", from: 0, to: 5_000_000, every: .nanoseconds(333_333))
        #expect(buckets.count == 16)
        #expect(buckets.reduce(0) { $0 + $1.count } == 5_000)
        #expect(buckets.first?.minimum == 0 && buckets.first?.maximum == 99)
        for bucket in buckets {
            let times = (0..<5_000).map { UInt64($0) * 1_000 }.filter { $0 >= bucket.start && $0 < bucket.end }
            #expect(bucket.count == times.count)
            let values = times.map { Double(Int($0 / 1_000) % 100) }
            #expect(bucket.minimum == values.min() && bucket.maximum == values.max())
        }
    }
}
