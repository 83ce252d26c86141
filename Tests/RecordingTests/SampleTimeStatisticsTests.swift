import Foundation
import GRDB
import ROS2
import RecordingQueries
import RecordingRepair
import TestSupport
import Testing

@testable import Recording

/// Sample-time aggregates answered from the index's per-chunk sample times
/// (schema v8) against the same recording with those columns empty or
/// absent (every message decoded) and against the samples themselves.
@Suite struct SampleTimeStatisticsTests {
    static let topic = "/dev/s/x"
    /// The first receive time: not on any bucket edge.
    static let start: UInt64 = 1_795_342_503_123_456_789

    /// One written sample.
    struct Sample {
        var log: UInt64
        var publish: UInt64
        var value: Double
    }

    /// 6,000 stamped samples received about 1 ms apart, each measured 0–20 ms
    /// before it arrived (sample times never go back: many repeat), every
    /// 41st value NaN, the others multiples of 1/4 (so every sum is exact,
    /// whatever the order of the additions), in chunks of 2 KiB (about
    /// 40 messages, 40 ms).
    static let recording: (directory: String, samples: [Sample]) = {
        var configuration = RecorderConfiguration()
        configuration.chunkSize = 2 << 10
        let directory = makeTemporaryDirectory() + "/rec"
        let recorder = try! Recorder(
            directory: directory, configuration: configuration,
            session: .init(name: "sample-statistics", source: "simulate"), startTime: start)
        let stream = try! recorder.addStream(
            StreamDescriptor(topic: topic, kind: .typed, schema: SampleTimeFixture.value.stamped, isNumeric: true))
        var generator = SplitMix64(seed: 37)
        var samples: [Sample] = []
        var publish: UInt64 = 0
        for index in 0..<6_000 {
            let log = start + UInt64(index) * 1_000_000 + generator.next() % 300_000
            publish = max(publish, log - generator.next() % 20_000_000)
            if index % 50 == 49 { publish = samples[index - 1].publish }
            let value = index % 41 == 7 ? Double.nan : Double(Int64(generator.next() % 4_001) - 2_000) / 4
            samples.append(Sample(log: log, publish: publish, value: value))
            try! recorder.write(
                stream, logTime: log, publishTime: publish, payload: SampleTimeFixture.stamped(publish, value),
                numericValue: value)
        }
        try! recorder.close()
        return (directory, samples)
    }()

    /// A copy of the recording whose index is changed by `sql`.
    static func copy(changing sql: String, _ label: String = #function) throws -> String {
        let directory = makeTemporaryDirectory(label) + "/rec"
        try FileManager.default.copyItem(atPath: recording.directory, toPath: directory)
        let queue = try DatabaseQueue(path: directory + "/index.sqlite")
        try queue.writeWithoutTransaction { db in try db.execute(sql: sql) }
        try queue.close()
        return directory
    }

    /// An `AggregateBucket`'s every field.
    struct Bucket: Equatable, CustomStringConvertible {
        var start: UInt64
        var end: UInt64
        var count = 0
        var messageCount = 0
        var minimum: Double?
        var maximum: Double?
        var mean: Double?
        var first: Double?
        var last: Double?

        init(start: UInt64, end: UInt64) {
            self.start = start
            self.end = end
        }

        init(_ bucket: AggregateBucket) {
            (start, end, count, messageCount) = (bucket.start, bucket.end, bucket.count, bucket.messageCount)
            (minimum, maximum, mean, first, last) = (
                bucket.minimum, bucket.maximum, bucket.mean, bucket.first, bucket.last
            )
        }

        var description: String {
            "\(start)..<\(end): \(count)/\(messageCount) \(String(describing: minimum)) \(String(describing: maximum)) "
                + "\(String(describing: mean)) \(String(describing: first)) \(String(describing: last))"
        }
    }

    /// The buckets from the samples themselves (in sample order: sample times never go back).
    static func expected(from: UInt64, to: UInt64, origin: UInt64, width: UInt64) -> [Bucket] {
        let count = Int((to - origin + width - 1) / width)
        var buckets = (0..<count).map { index in
            Bucket(start: origin + UInt64(index) * width, end: min(to, origin + UInt64(index + 1) * width))
        }
        var sums = [Double](repeating: 0, count: count)
        for sample in recording.samples where sample.publish >= from && sample.publish < to {
            let index = Int((sample.publish - origin) / width)
            buckets[index].messageCount += 1
            guard !sample.value.isNaN else { continue }
            buckets[index].count += 1
            buckets[index].minimum = min(buckets[index].minimum ?? sample.value, sample.value)
            buckets[index].maximum = max(buckets[index].maximum ?? sample.value, sample.value)
            sums[index] += sample.value
            if buckets[index].first == nil { buckets[index].first = sample.value }
            buckets[index].last = sample.value
        }
        for index in 0..<count where buckets[index].count > 0 {
            buckets[index].mean = sums[index] / Double(buckets[index].count)
        }
        return buckets
    }

    /// Ranges: the whole recording, and one that starts and ends inside chunks.
    static let ranges: [(from: UInt64, to: UInt64)] = [
        (start - 30_000_000, start + 6_100_000_000), (start + 1_234_567_891, start + 4_321_987_654),
    ]
    /// Bucket widths: smaller than a chunk, a tenth of a second, one that does not divide a second, a second.
    static let widths: [UInt64] = [7_000_000, 100_000_000, 333_000_000, 1_000_000_000]

    @Test func sampleTimeBucketsFromTheIndexEqualADecodeOfEveryMessage() throws {
        let decoding = try Self.copy(
            changing: "UPDATE chunk_streams SET first_sample_time = NULL, last_sample_time = NULL")
        let reader = try RecordingReader(directory: Self.recording.directory)
        let decoder = try RecordingReader(directory: decoding)
        var fromStatistics = 0
        for (from, to) in Self.ranges {
            for width in Self.widths {
                let origin = from - from % width
                let every = Duration.nanoseconds(Int64(width))
                let expected = Self.expected(from: from, to: to, origin: origin, width: width)
                let (buckets, cost) = try reader.aggregate(
                    topic: Self.topic, from: from, to: to, every: every, origin: origin, time: .sample)
                let (decoded, decodeCost) = try decoder.aggregate(
                    topic: Self.topic, from: from, to: to, every: every, origin: origin, time: .sample)
                #expect(buckets.map(Bucket.init) == expected, "width \(width), from \(from)")
                #expect(decoded.map(Bucket.init) == expected, "width \(width), from \(from)")
                #expect(decodeCost.chunksFromStatistics == 0)
                #expect(cost.chunksDecoded <= decodeCost.chunksDecoded)
                fromStatistics += cost.chunksFromStatistics

                // Counts alone (what a stream that is not numeric gets), the same way.
                let counted = try reader.countMessages(
                    topic: Self.topic, from: from, to: to, every: every, origin: origin, time: .sample)
                #expect(counted.buckets.map(\.count) == expected.map(\.messageCount))
                #expect(counted.cost.chunksFromStatistics == cost.chunksFromStatistics)

                // The plot's columns: counts, minimums, maximums and sums, the same both ways.
                let columns = try reader.columnAggregates(
                    topic: Self.topic, from: from, to: to, width: width, origin: origin, time: .sample)
                let decodedColumns = try decoder.columnAggregates(
                    topic: Self.topic, from: from, to: to, width: width, origin: origin, time: .sample)
                #expect(columns.columns.counts == expected.map(\.count))
                #expect(columns.columns.counts == decodedColumns.columns.counts)
                #expect(columns.columns.sums == decodedColumns.columns.sums)
                #expect(
                    zip(columns.columns.minimums, expected).allSatisfy {
                        $0.isNaN ? $1.minimum == nil : $0 == $1.minimum
                    })
                #expect(
                    zip(columns.columns.maximums, expected).allSatisfy {
                        $0.isNaN ? $1.maximum == nil : $0 == $1.maximum
                    })
                #expect(columns.cost.chunksFromStatistics == cost.chunksFromStatistics)
            }
        }
        // The wide buckets take most chunks from the index.
        #expect(fromStatistics > 200, "\(fromStatistics)")
    }

    @Test func anIndexWithoutSampleTimeColumnsDecodesAndAgrees() throws {
        // An index of schema v7: no sample-time columns, no v8 migration (the reader opens it read-only).
        let old = try Self.copy(
            changing: """
                ALTER TABLE chunk_streams DROP COLUMN first_sample_time;
                ALTER TABLE chunk_streams DROP COLUMN last_sample_time;
                DELETE FROM grdb_migrations WHERE identifier = 'v8';
                """)
        let reader = try RecordingReader(directory: old)
        for width in Self.widths {
            let (from, to) = Self.ranges[1]
            let origin = from - from % width
            let (buckets, cost) = try reader.aggregate(
                topic: Self.topic, from: from, to: to, every: .nanoseconds(Int64(width)), origin: origin,
                time: .sample)
            #expect(buckets.map(Bucket.init) == Self.expected(from: from, to: to, origin: origin, width: width))
            #expect(cost.chunksFromStatistics == 0 && cost.chunksDecoded > 0)
        }
    }

    @Test func theRecorderAndARebuildKeepTheSameSampleTimes() throws {
        func sampleTimes(_ directory: String) throws -> [[Int64?]] {
            let queue = try DatabaseQueue(path: directory + "/index.sqlite")
            defer { try? queue.close() }
            return try queue.read { db in
                try Row.fetchAll(
                    db,
                    sql: """
                        SELECT c.offset, cs.first_time, cs.first_sample_time, cs.last_sample_time
                        FROM chunk_streams cs JOIN chunks c ON c.id = cs.chunk_id ORDER BY c.offset
                        """
                ).map { row in [row[0] as Int64?, row[1] as Int64?, row[2] as Int64?, row[3] as Int64?] }
            }
        }
        let recorded = try sampleTimes(Self.recording.directory)
        #expect(recorded.count > 100)
        #expect(recorded.allSatisfy { $0[2] != nil && $0[3] != nil && $0[2]! <= $0[1]! })
        let rebuilt = try Self.copy(changing: "UPDATE chunk_streams SET first_sample_time = 1")
        _ = try RecordingRecovery.recover(directory: rebuilt, rebuildIndex: true)
        #expect(try sampleTimes(rebuilt) == recorded)
        #expect(try RecordingVerifier.verify(directory: rebuilt).findings.isEmpty)
    }

    @Test func verifyNamesALyingSampleTimeAndAcceptsNone() throws {
        let lying = try Self.copy(
            changing: """
                UPDATE chunk_streams SET last_sample_time = last_sample_time + 1
                WHERE chunk_id = (SELECT MIN(chunk_id) FROM chunk_streams)
                """)
        let findings = try RecordingVerifier.verify(directory: lying).findings.map(\.message)
        #expect(findings.count == 1, "\(findings)")
        #expect(findings.first?.contains("sample times") == true, "\(findings)")
        let none = try Self.copy(changing: "UPDATE chunk_streams SET first_sample_time = NULL, last_sample_time = NULL")
        #expect(try RecordingVerifier.verify(directory: none).findings.isEmpty)
    }

    @Test(arguments: [
        ([5, 30], "/dev/a/x message 1: its sample time (publish_time 1030000000) is after its receive time"),
        ([5, 3], "/dev/a/x message 1: its sample time (publish_time 1003000000) is before the previous"),
    ])
    func aChunkOutOfSampleOrderIsDecodedAndItsErrorReported(_ publishes: [Int], _ expected: String) throws {
        let directory = makeTemporaryDirectory() + "/rec"
        let recorder = try Recorder(
            directory: directory, session: .init(name: "bad", source: "simulate", host: "test-host"), startTime: 0)
        let stream = try recorder.addStream(
            StreamDescriptor(topic: "/dev/a/x", kind: .typed, schema: SampleTimeFixture.value.stamped, isNumeric: true))
        for (index, publish) in publishes.enumerated() {
            let time = SampleTimeFixture.at(UInt64(publish))
            try recorder.write(
                stream, logTime: SampleTimeFixture.at(UInt64(10 * (index + 1))), publishTime: time,
                payload: SampleTimeFixture.stamped(time, 1), numericValue: 1)
        }
        try recorder.close(at: SampleTimeFixture.at(50))
        let queue = try DatabaseQueue(path: directory + "/index.sqlite")
        let stored = try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT first_sample_time, last_sample_time FROM chunk_streams")
        }
        try queue.close()
        #expect(stored.count == 1 && stored.allSatisfy { $0[0] as Int64? == nil && $0[1] as Int64? == nil })
        let reader = try RecordingReader(directory: directory)
        let error = #expect(throws: RecordingError.self) {
            try reader.aggregate(
                topic: "/dev/a/x", from: 0, to: SampleTimeFixture.at(100), every: .seconds(10), origin: 0,
                time: .sample)
        }
        #expect(error?.code == .corrupt)
        #expect(error?.message.hasPrefix(expected) == true, "\(error?.message ?? "")")
    }
}
