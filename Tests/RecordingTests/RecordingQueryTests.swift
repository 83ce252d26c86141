import Foundation
import ROS2
import RecordingExport
import Testing

@testable import Recording
@testable import RecordingQueries

/// `tlm query`'s library: messages as rows, and aggregates per bucket of
/// numeric streams and of the others, over ``AggregateAgreementTests``'
/// recording (a numeric stream and a coded one, jittered, with gaps; moved
/// from tlmTests' QueryExportTests and CLIHabitsTests, which ran `tlm query`).
@Suite struct RecordingQueryTests {
    static var recording: String { AggregateAgreementTests.recording }
    static let numeric = AggregateAgreementTests.numeric
    static let coded = AggregateAgreementTests.coded

    /// The whole recording as a query of `topics`.
    static func query(_ topics: [String]) throws -> RecordingQuery {
        let reader = try RecordingReader(directory: recording)
        let info = try RecordingInfo.load(from: recording)
        let first = try #require(info.streams.compactMap(\.firstTime).min())
        let last = try #require(info.streams.compactMap(\.lastTime).max())
        return RecordingQuery(reader: reader, topics: topics, from: first, to: last + 1)
    }

    /// Every bucket row of a plan.
    static func rows(
        _ query: RecordingQuery, every: Duration, aligned: Bool = true, _ aggregates: [BucketPlan.Aggregate]
    ) throws -> (plan: BucketPlan, rows: [RecordingQuery.BucketRow]) {
        let plan = try query.bucketPlan(every: every, aligned: aligned, aggregates: aggregates)
        var rows: [RecordingQuery.BucketRow] = []
        _ = try query.forEachBucketRow(plan) { rows.append($0) }
        return (plan, rows)
    }

    @Test func aggregatesParseFromACommaSeparatedList() {
        #expect(BucketPlan.aggregates(parsing: "count,mean") == [.count, .mean])
        #expect(BucketPlan.aggregates(parsing: "last,first,min") == [.last, .first, .min])
        #expect(BucketPlan.aggregates(parsing: "count,median") == nil)
        #expect(BucketPlan.aggregates(parsing: "") == nil)
        #expect(BucketPlan.aggregates(parsing: ",") == nil)
        #expect(BucketPlan.Aggregate.allCases.map(\.rawValue) == ["count", "min", "max", "mean", "first", "last"])
    }

    @Test func aRelativeRangeReturnsExactlyTheMessagesInIt() throws {
        let whole = try Self.query([Self.numeric, Self.coded])
        let from = whole.from + 500_000_000
        let to = whole.from + 1_000_000_000
        let query = RecordingQuery(reader: whole.reader, topics: whole.topics, from: from, to: to)
        var columns: [String] = []
        var rows: [RecordingQuery.MessageRow] = []
        try query.forEachMessageRow(columns: { columns = $0 }) { rows.append($0) }
        #expect(Set(columns) == ["value", "code"] && columns.count == 2)
        let expected = try RecordingReader(directory: Self.recording)
            .typedMessages(topics: query.topics, from: from, to: to)
        #expect(rows.count == expected.count && rows.count > 500)
        #expect(rows.map(\.logTime) == rows.map(\.logTime).sorted())
        // Each topic fills its own column; the other's is empty.
        func line(_ time: UInt64, _ topic: String, _ values: [String]) -> String { "\(time) \(topic) \(values)" }
        let got = rows.map { line($0.logTime, $0.topic, $0.values) }
        let want = expected.map { message in
            line(message.message.logTime, message.message.topic, columns.map { message[$0].map(\.text) ?? "" })
        }
        #expect(got.sorted() == want.sorted())
    }

    @Test func aggregatesPerBucketEqualTheMeanOfTheValues() throws {
        let query = try Self.query([Self.numeric])
        let start = query.from
        let (_, rows) = try Self.rows(query, every: .milliseconds(500), [.count, .mean])
        #expect(rows.count >= 4)
        let typed = try RecordingReader(directory: Self.recording).typedMessages(topics: [Self.numeric])
        // Buckets are aligned to the epoch: the first ends at the first multiple of 500 ms after the start.
        let edge = start - start % 500_000_000 + 500_000_000
        let firstBucket = typed.filter { $0.message.logTime < edge }.compactMap { $0["value"]?.number }
        #expect(rows[0].values[0] == String(firstBucket.count))
        let mean = try #require(Double(rows[0].values[1]))
        #expect(abs(mean - firstBucket.reduce(0, +) / Double(firstBucket.count)) < 1e-9)
    }

    @Test func aggregatesCoverEveryStreamAlignedToTheEpoch() throws {
        let query = try Self.query([Self.numeric, Self.coded])
        let (plan, rows) = try Self.rows(query, every: .seconds(1), [.count])
        #expect(plan.nonNumericTopics == [Self.coded])
        #expect(!plan.wantsNumericOnly && plan.showsNonNumeric)
        #expect(Set(rows.map(\.topic)) == [Self.numeric, Self.coded])
        let reader = try RecordingReader(directory: Self.recording)
        for topic in query.topics {
            let total = rows.filter { $0.topic == topic }.reduce(0) { $0 + Int($1.values[0])! }
            #expect(total == (try reader.messages(topics: [topic])).count, "\(topic)")
        }
        // Whole seconds.
        #expect(rows.allSatisfy { $0.start % 1_000_000_000 == 0 }, "\(rows.map(\.start))")

        // Without alignment the first bucket starts at the range's start (the recording's first message).
        let (_, unaligned) = try Self.rows(query, every: .seconds(1), aligned: false, [.count])
        #expect(unaligned.first?.start == query.from)
        #expect(query.from % 1_000_000_000 != 0)
    }

    @Test func streamsThatAreNotNumericGetCountsFirstAndLastOnly() throws {
        let query = try Self.query([Self.numeric, Self.coded])
        let (plan, rows) = try Self.rows(query, every: .seconds(1), BucketPlan.Aggregate.allCases)
        #expect(plan.wantsNumericOnly && plan.wantsFirstOrLast && plan.showsNonNumeric)
        let coded = rows.filter { $0.topic == Self.coded }
        #expect(!coded.isEmpty && coded.allSatisfy { $0.values[1...3] == ["", "", ""] })
        // First and last: the bucket's earliest and latest message's field, as text.
        let messages = try RecordingReader(directory: Self.recording).typedMessages(topics: [Self.coded])
        let firstBucket = messages.filter { $0.message.logTime < coded[1].start }
        #expect(coded[0].values[4] == firstBucket.first?["code"]?.text)
        #expect(coded[0].values[5] == firstBucket.last?["code"]?.text)
        #expect(coded[0].values[0] == String(firstBucket.count))
        // A numeric stream's first bucket: every aggregate is a number.
        let level = try #require(rows.first { $0.topic == Self.numeric })
        #expect(level.values.allSatisfy { Double($0) != nil }, "\(level.values)")

        // Only aggregates a stream that is not numeric lacks: it is skipped.
        let (meanPlan, means) = try Self.rows(query, every: .seconds(1), [.mean, .max])
        #expect(meanPlan.wantsNumericOnly && !meanPlan.showsNonNumeric)
        #expect(Set(means.map(\.topic)) == [Self.numeric])
    }
}
