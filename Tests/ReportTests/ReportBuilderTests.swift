import Foundation
import Recording
import RecordingQueries
import Testing

@testable import Report

@Suite struct ReportBuilderTests {
    @Test func levelsHoldEachColumnsMinimumMaximumAndMeanOfTheValues() throws {
        let recording = try ReportTestRecording(seconds: 10, rate: 2000)
        let builder = try ReportBuilder(directory: recording.directory)
        let data = try builder.build(topics: builder.topics)
        let series = try #require(data.series.first)
        #expect(data.series.map(\.topic) == ["/sim/D1/value"])
        #expect(series.unit == "[g]")
        #expect(series.count == recording.values.count)
        #expect(series.minimum == recording.values.map(\.value).min())
        #expect(series.maximum == recording.values.map(\.value).max())
        // 20,000 samples: each level fills more columns than the one above, so all three are kept.
        #expect(series.levels.map(\.columnCount).allSatisfy { $0 <= 32768 })
        #expect(series.levels.count == 3)
        for level in series.levels {
            var counts = [Int](repeating: 0, count: level.columnCount)
            var minimums = [Double](repeating: .infinity, count: level.columnCount)
            var maximums = [Double](repeating: -.infinity, count: level.columnCount)
            var sums = [Double](repeating: 0, count: level.columnCount)
            for (time, value) in recording.values {
                let column = Int((time - level.start) / level.width)
                counts[column] += 1
                minimums[column] = min(minimums[column], value)
                maximums[column] = max(maximums[column], value)
                sums[column] += value
            }
            #expect(level.counts == counts)
            for column in 0..<level.columnCount where counts[column] > 0 {
                #expect(level.minimums[column] == minimums[column])
                #expect(level.maximums[column] == maximums[column])
                #expect(abs(level.means[column] - sums[column] / Double(counts[column])) < 1e-9)
            }
        }
        #expect(series.levels[1].width == series.levels[2].width * 4)
        #expect(series.levels[0].width == series.levels[1].width * 4)
    }

    @Test func wideColumnsMergeWholeChunksFromTheIndexAndReadOnlyTheChunksAnEdgeCuts() throws {
        // 20,000 samples in 16 KiB chunks (a few hundred each) over 7 columns of about 1.4 s:
        // most chunks lie inside one column, one or two cut by each edge.
        let recording = try ReportTestRecording(seconds: 10, rate: 2000)
        let reader = try RecordingReader(directory: recording.directory)
        let from = ReportTestRecording.start + 123_456_789
        let to = ReportTestRecording.start + 9_876_543_210
        let width = (to - from + 6) / 7
        let (columns, cost) = try reader.columnAggregates(
            topic: "/sim/D1/value", from: from, to: to, width: width)
        #expect(cost.chunksFromStatistics > 0 && cost.chunksDecoded > 0, "\(cost)")
        #expect(cost.chunksDecoded <= 2 * 8, "\(cost)")
        var counts = [Int](repeating: 0, count: 7)
        var minimums = [Double](repeating: .infinity, count: 7)
        var maximums = [Double](repeating: -.infinity, count: 7)
        var sums = [Double](repeating: 0, count: 7)
        for (time, value) in recording.values where time >= from && time < to {
            let column = Int((time - from) / width)
            counts[column] += 1
            minimums[column] = min(minimums[column], value)
            maximums[column] = max(maximums[column], value)
            sums[column] += value
        }
        #expect(columns.start == from && columns.width == width)
        #expect(columns.counts == counts)
        #expect(columns.minimums == minimums)
        #expect(columns.maximums == maximums)
        for column in 0..<7 { #expect(abs(columns.sums[column] - sums[column]) < 1e-6) }
        // As the reader's general aggregate answers the same buckets.
        let (buckets, _) = try reader.aggregate(
            topic: "/sim/D1/value", from: from, to: to, every: .nanoseconds(Int64(width)))
        #expect(buckets.map(\.count) == columns.counts)
        #expect(buckets.map(\.minimum) == columns.minimums.map { Optional($0) })
        #expect(throws: RecordingError.self) {
            try reader.columnAggregates(topic: "/sim/D1/gesture", from: from, to: to, width: width)
        }
    }

    @Test func aSparseStreamKeepsOnlyTheLevelsThatAddDetail() throws {
        // 50 Hz over 10 s: 500 values in 2,048 columns, one value at most each.
        let recording = try ReportTestRecording(seconds: 10, rate: 50)
        let builder = try ReportBuilder(directory: recording.directory)
        let data = try builder.build(topics: ["/sim/D1/value"])
        let series = try #require(data.series.first)
        #expect(series.levels.count == 1)
        #expect(series.levels[0].counts.reduce(0, +) == 500)
        #expect(series.levels[0].filledColumnCount == 500)
        #expect(data.events.isEmpty)
    }

    @Test func eventsLossesAndCountsCoverTheRange() throws {
        let recording = try ReportTestRecording(seconds: 10, rate: 100)
        let builder = try ReportBuilder(directory: recording.directory)
        let from = ReportTestRecording.start + 2_000_000_000
        let to = ReportTestRecording.start + 6_000_000_000
        let data = try builder.build(topics: builder.topics, from: from, to: to)
        let events = try #require(data.events.first)
        #expect(events.topic == "/sim/D1/gesture")
        #expect(events.marks.map(\.time) == recording.eventTimes.filter { $0 >= from && $0 < to })
        #expect(events.marks.first?.label.hasPrefix("gesture=swipe ") == true)
        // Losses at 3 s and 5 s (the gap) are inside; the loss at 1 s is not.
        #expect(data.losses.map(\.time) == recording.lossTimes.filter { $0 >= from && $0 < to })
        #expect(data.losses.map(\.durationNanoseconds) == [nil, 300_000_000])
        let value = try #require(data.streams.first { $0.topic == "/sim/D1/value" })
        #expect(value.count == 400)
        #expect(abs((value.rate ?? 0) - 100) < 0.5)
        let inRange = recording.values.filter { $0.time >= from && $0.time < to }.map(\.value)
        #expect(value.minimum == inRange.min() && value.maximum == inRange.max())
    }

    @Test func busyEventStreamsAndLossesAreCappedEvenly() {
        let spread = ReportBuilder.spread(Array(0..<10_000), atMost: 2000)
        #expect(spread.count == 2000)
        #expect(spread.first == 0 && spread.last == 9995)
        #expect(zip(spread, spread.dropFirst()).allSatisfy { $1 - $0 == 5 })
        #expect(ReportBuilder.spread([1, 2, 3], atMost: 2000) == [1, 2, 3])
    }

    @Test func anEmptyRangeOrAMissingRecordingIsAClearError() throws {
        let recording = try ReportTestRecording(seconds: 1, rate: 10)
        let builder = try ReportBuilder(directory: recording.directory)
        #expect(throws: ReportError.self) {
            try builder.build(topics: builder.topics, from: ReportTestRecording.start, to: ReportTestRecording.start)
        }
        let error = #expect(throws: ReportError.self) { try ReportBuilder(directory: "/nonexistent/rec") }
        #expect(error?.message.contains("/nonexistent/rec") == true)
    }

    @Test func mergingColumnsIsExact() {
        let level = PlotLevel(
            start: 100, width: 10, counts: [1, 0, 2, 3, 1], minimums: [1, .nan, -2, 5, 9],
            maximums: [1, .nan, 4, 6, 9], means: [1, .nan, 1, 5.5, 9])
        let merged = level.merged(by: 2)
        #expect(merged.width == 20 && merged.start == 100)
        #expect(merged.counts == [1, 5, 1])
        #expect(merged.minimums == [1, -2, 9])
        #expect(merged.maximums == [1, 6, 9])
        let expectedMean: Double = (2.0 + 16.5) / 5
        #expect(merged.means[1] == expectedMean)
    }
}
