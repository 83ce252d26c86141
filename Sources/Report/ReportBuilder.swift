import Foundation
import ROS2
public import Recording
import RecordingExport
import RecordingQueries

/// Reads what a report shows from a recording: per-column min/max/mean of
/// numeric streams from the index's per-chunk statistics (decoding only the
/// chunks a column boundary cuts through), event marks, loss records and
/// per-stream totals.
///
/// The plot data is bounded by the number of columns, not by the number of
/// samples: at most ``levelColumns`` columns per numeric stream, and a finer
/// level only when its values fill at least 5 % more columns than the
/// coarser one's (``PlotLevel/isRefined(by:)``).
///
/// ```swift
/// let builder = try ReportBuilder(directory: "ride")
/// let data = try builder.build(topics: builder.topics, from: nil, to: nil)
/// try HTMLReport(data).text.write(toFile: "ride.html", atomically: true, encoding: .utf8)
/// ```
///
/// Not `Sendable` (it holds a `RecordingReader`); use one per task.
public final class ReportBuilder {
    /// Columns of each level of detail, coarsest first: each level is four
    /// times finer, so zooming in up to 16 times still shows a column per
    /// pixel of a 2,048-pixel plot.
    public static let levelColumns = [2048, 8192, 32768]
    /// The most event marks kept per event stream, and loss records per report.
    public static let maximumMarks = 2000

    /// The recording's summary.
    public let info: RecordingInfo
    let reader: RecordingReader
    private let numericTopics: Set<String>
    /// The time of the build under way.
    var time = MessageTime.sample
    /// Whether the build under way begins latched event streams with their last message before the range.
    private var latched = false

    /// Opens a recording.
    ///
    /// - Throws: ``ReportError`` when there is no readable recording at `directory`.
    public init(directory: String) throws(ReportError) {
        do {
            info = try RecordingInfo.load(from: directory)
            reader = try RecordingReader(directory: directory)
            var numeric = Set<String>()
            for topic in reader.topics where try reader.streamRow(topic: topic).isNumeric { numeric.insert(topic) }
            numericTopics = numeric
        } catch {
            throw ReportError(error.message)
        }
    }

    /// Every topic of the recording, sorted.
    public var topics: [String] { reader.topics }

    /// Whether a topic is a numeric stream (one with per-chunk statistics).
    public func isNumeric(_ topic: String) -> Bool { numericTopics.contains(topic) }

    /// The range a report covers when no bound is given: the recording's
    /// first message to just after its last (`to` exclusive).
    public var wholeRange: (from: UInt64, to: UInt64) {
        let start = info.streams.compactMap(\.firstTime).min() ?? info.session.startedAt
        let end = (info.streams.compactMap(\.lastTime).max() ?? start) &+ 1
        return (start, max(end, start &+ 1))
    }

    /// The first and last times of the recording's messages in `time`
    /// (`RecordingReader.timeSpan(time:)`), for resolving a range.
    ///
    /// - Throws: ``ReportError`` when the recording cannot be read.
    public func timeSpan(time: MessageTime) throws(ReportError) -> (first: UInt64, last: UInt64)? {
        do { return try reader.timeSpan(time: time) } catch { throw ReportError(error.message) }
    }

    /// The range `from ..< to` in `time` (the recording's whole span for
    /// a bound not given) and the streams of `topics`.
    ///
    /// - Throws: ``ReportError`` when the range is empty or the recording cannot be read.
    func selection(
        topics: [String], from: UInt64?, to: UInt64?
    ) throws(ReportError) -> (lower: UInt64, upper: UInt64, streams: [RecordingInfo.Stream]) {
        let whole = try timeSpan(time: time).map { ($0.first, $0.last &+ 1) } ?? wholeRange
        let lower = from ?? whole.0
        let upper = to ?? whole.1
        guard upper > lower else { throw ReportError("the range is empty: --to must be after --from") }
        let chosen = Set(topics)
        return (lower, upper, info.streams.filter { chosen.contains($0.topic) })
    }

    /// Reads the report's data for `topics` over `from ..< to`, in `time`:
    /// with sample time (the default) the range, the columns and the event
    /// marks are by sample time, and a stamped numeric stream's columns are
    /// read from its messages, but for chunks whose sample times lie in one
    /// column (the index's per-cell statistics are per receive time);
    /// streams without a sample time, and loss records, keep their receive time.
    ///
    /// - Parameters:
    ///   - topics: The streams to show; raw streams get a row in the table only.
    ///   - from: Start (inclusive); `nil` for the recording's first message.
    ///   - to: End (exclusive); `nil` for just after its last message.
    ///   - levels: How many levels of detail to read at most (1 for a single
    ///     plot of ``levelColumns``[0] columns).
    ///   - columns: The columns of a single level instead (a plot's width in
    ///     pixels, so that each pixel column is one column and no more chunks
    ///     than the pixel boundaries cut through are decoded).
    ///   - time: The time the range, columns and marks are in.
    ///   - latched: Begin each latched event stream (device information,
    ///     settings, states) with its last message before `from`, as a mark at
    ///     `from` (``ReportData/Mark/isLatched``), as slices do.
    ///   - fields: The fields of typed streams to plot (`["accel_x", "accel_y"]`),
    ///     each stream that has any of them as one lane of those fields; `nil`
    ///     for the vector components of vector-like schemas
    ///     (numeric fields named `x`, `y`, `z` or ending in `_x`, `_y`, `_z`: an IMU's six axes).
    /// - Throws: ``ReportError`` when the range is empty, a segment cannot be
    ///   read, or a field of `fields` is no numeric field of any selected stream.
    public func build(
        topics: [String], from: UInt64? = nil, to: UInt64? = nil, levels: Int = ReportBuilder.levelColumns.count,
        columns: Int? = nil, time: MessageTime = .sample, latched: Bool = false, fields: [String]? = nil
    ) throws(ReportError) -> ReportData {
        self.time = time
        self.latched = latched
        let (lower, upper, streams) = try selection(topics: topics, from: from, to: to)
        var series: [ReportData.Series] = []
        var events: [ReportData.EventSeries] = []
        let plotted = try plottedFields(of: streams, fields: fields)
        do {
            let counts = columns.map { [max(1, $0)] } ?? Array(Self.levelColumns.prefix(max(1, levels)))
            for stream in streams {
                if numericTopics.contains(stream.topic) {
                    series.append(
                        try numericSeries(stream, from: lower, to: upper, columns: counts, aligned: columns == nil))
                } else if let names = plotted[stream.topic] {
                    series += try fieldSeries(
                        stream, fields: names, from: lower, to: upper, columns: counts)
                }
            }
            events = try eventSeries(
                streams.filter {
                    !numericTopics.contains($0.topic) && plotted[$0.topic] == nil && Self.isEventStream($0)
                }, from: lower, to: upper)
        } catch {
            throw ReportError(error.message)
        }
        let losses = info.losses.filter { loss in
            loss.time < upper && loss.time &+ (loss.durationNanoseconds ?? 0) >= lower
        }
        return ReportData(
            info: info, from: lower, to: upper, series: series, events: events,
            losses: Self.spread(losses, atMost: Self.maximumMarks),
            streams: summaries(streams, series: series, events: events, from: lower, to: upper))
    }

    /// Whether a stream is drawn as event marks: a typed or event stream that
    /// is not numeric, not raw notifications, and not the loss records
    /// (those are shaded on every lane).
    static func isEventStream(_ stream: RecordingInfo.Stream) -> Bool {
        stream.kind != "raw" && !stream.topic.hasPrefix("/tlm/")
    }

    /// A numeric stream's levels: the coarsest always; finer ones while they
    /// refine the level above. `aligned`: column edges on the index's cell
    /// grid (`RecordingReader.alignedColumns(from:to:columns:)`), so the
    /// levels come from the index's cells without decoding chunks; a plot of
    /// given pixel columns is not aligned.
    private func numericSeries(
        _ stream: RecordingInfo.Stream, from: UInt64, to: UInt64, columns: [Int], aligned: Bool
    ) throws(RecordingError) -> ReportData.Series {
        let span = to - from
        let finest = UInt64(columns.last!)
        var origin = from
        var finestWidth = max(1, (span + finest - 1) / finest)
        if aligned {
            (origin, finestWidth) = RecordingReader.alignedColumns(from: from, to: to, columns: columns.last!)
        }
        let factor = UInt64(columns.last! / columns.first!)
        var coarse: PlotLevel
        var finer: [PlotLevel] = []
        if columns.count > 1, stream.messageCount > columns[0] {
            // A busy stream: the finest level is read once and the coarser ones are merged from it, so no
            // chunk is decoded twice.
            finer = [try level(stream.topic, from: from, to: to, origin: origin, width: finestWidth)]
            for _ in 1..<columns.count { finer.insert(finer[0].merged(by: 4), at: 0) }
            coarse = finer.removeFirst()
        } else {
            coarse = try level(stream.topic, from: from, to: to, origin: origin, width: finestWidth * factor)
            if columns.count > 1, coarse.counts.contains(where: { $0 > 1 }) {
                finer = [try level(stream.topic, from: from, to: to, origin: origin, width: finestWidth)]
                for _ in 2..<columns.count { finer.insert(finer[0].merged(by: 4), at: 0) }
            }
        }
        var result = [coarse]
        for level in finer {
            guard result.last!.isRefined(by: level) else { break }
            result.append(level)
        }
        let filled = coarse.counts.indices.filter { coarse.counts[$0] > 0 }
        let minimum = filled.map { coarse.minimums[$0] }.min()
        let maximum = filled.map { coarse.maximums[$0] }.max()
        return ReportData.Series(
            topic: stream.topic, unit: stream.unit, count: coarse.counts.reduce(0, +), minimum: minimum,
            maximum: maximum, levels: result)
    }

    /// One level, from the index's per-chunk statistics and the chunks that straddle a column edge
    /// (decompressed on two threads).
    private func level(
        _ topic: String, from: UInt64, to: UInt64, origin: UInt64, width: UInt64
    ) throws(RecordingError) -> PlotLevel {
        let (columns, _) = try reader.columnAggregates(
            topic: topic, from: from, to: to, width: width, origin: origin, time: time)
        var means = columns.sums
        for index in means.indices {
            means[index] = columns.counts[index] > 0 ? columns.sums[index] / Double(columns.counts[index]) : .nan
        }
        return PlotLevel(
            start: columns.start, width: width, counts: columns.counts, minimums: columns.minimums,
            maximums: columns.maximums, means: means)
    }

    /// The event streams' marks, read in one pass.
    private func eventSeries(
        _ streams: [RecordingInfo.Stream], from: UInt64, to: UInt64
    ) throws(RecordingError) -> [ReportData.EventSeries] {
        guard !streams.isEmpty else { return [] }
        // Keep every k-th message of a busy stream, k from its total count.
        var strides: [String: Int] = [:]
        var seen: [String: Int] = [:]
        var marks: [String: [ReportData.Mark]] = [:]
        for stream in streams {
            strides[stream.topic] = max(1, (stream.messageCount + Self.maximumMarks - 1) / Self.maximumMarks)
        }
        let stamped = time == .sample ? try reader.sampleTimeTopics() : []
        if latched { try addLatchedMarks(of: streams, before: from, to: &marks) }
        try reader.forEachTypedMessage(topics: streams.map(\.topic), from: from, to: to, time: time) { message in
            let topic = message.message.topic
            let index = seen[topic, default: 0]
            seen[topic] = index + 1
            guard index % strides[topic, default: 1] == 0, marks[topic, default: []].count < Self.maximumMarks else {
                return
            }
            marks[topic, default: []].append(
                .init(
                    time: time.of(message.message, stamped: stamped.contains(topic)), title: Self.title(message),
                    label: Self.label(message)))
        }
        return streams.map { stream in
            .init(topic: stream.topic, count: seen[stream.topic, default: 0], marks: marks[stream.topic] ?? [])
        }
    }

    /// The latched streams' last messages before `start`, as marks at `start`.
    private func addLatchedMarks(
        of streams: [RecordingInfo.Stream], before start: UInt64, to marks: inout [String: [ReportData.Mark]]
    ) throws(RecordingError) {
        let context = try reader.exportContext(topics: streams.map(\.topic))
        let found = try RecordingSource(reader).latchedMessages(topics: context.topics, before: start, time: time)
        guard !found.isEmpty else { return }
        let definitions = try reader.schemaDefinitions()
        for message in found {
            guard let (name, definition) = definitions[message.topic] else { continue }
            let typed = TypedMessage(
                message: message, schema: name,
                fields: try RecordingError.cdr({ () throws(CDRError) in try definition.decode(message.payload) }))
            marks[message.topic, default: []].append(
                .init(time: start, title: Self.title(typed), label: Self.label(typed), isLatched: true))
        }
    }

    /// A message's fields as one short line.
    static func label(_ message: TypedMessage) -> String {
        let text = message.fields.map { "\($0.name)=\($0.value.text)" }.joined(separator: " ")
        return text.count > 80 ? String(text.prefix(79)) + "…" : text
    }

    /// A message's first non-empty string field, else its first field, as text; the sample time
    /// `stamp` is never the title (it would label every mark with nanoseconds since the epoch).
    static func title(_ message: TypedMessage) -> String {
        let fields = message.fields.filter { $0.name != "stamp" }
        for field in fields {
            if case .string(let text) = field.value, !text.isEmpty { return String(text.prefix(40)) }
        }
        return String((fields.first?.value.text ?? "").prefix(40))
    }

    /// At most `limit` elements, evenly spread.
    static func spread<Element>(_ elements: [Element], atMost limit: Int) -> [Element] {
        guard elements.count > limit else { return elements }
        return (0..<limit).map { elements[$0 * elements.count / limit] }
    }

    private func summaries(
        _ streams: [RecordingInfo.Stream], series: [ReportData.Series], events: [ReportData.EventSeries],
        from: UInt64, to: UInt64
    ) -> [ReportData.StreamSummary] {
        // A stream's fields: its message count, and the smallest and largest value of any of them.
        var numeric: [String: ReportData.Series] = [:]
        for item in series {
            guard var merged = numeric[item.topic] else {
                numeric[item.topic] = item
                continue
            }
            merged.count = max(merged.count, item.count)
            merged.minimum = [merged.minimum, item.minimum].compactMap { $0 }.min()
            merged.maximum = [merged.maximum, item.maximum].compactMap { $0 }.max()
            numeric[item.topic] = merged
        }
        let counted = Dictionary(uniqueKeysWithValues: events.map { ($0.topic, $0) })
        return streams.map { stream in
            var summary = ReportData.StreamSummary(
                topic: stream.topic, kind: stream.kind, unit: stream.unit, count: stream.messageCount)
            // The stream's own span, within the range.
            var first = stream.firstTime.map { max($0, from) }
            var last = stream.lastTime.map { min($0, to - 1) }
            if let values = numeric[stream.topic] {
                summary.count = values.count
                summary.minimum = values.minimum
                summary.maximum = values.maximum
            } else if let marks = counted[stream.topic] {
                summary.count = marks.count
                let own = marks.marks.filter { !$0.isLatched }
                first = own.first?.time
                last = own.last?.time
            }
            if let first, let last, last > first, summary.count > 1 {
                summary.rate = Double(summary.count - 1) / (Double(last - first) / 1e9)
            }
            return summary
        }
    }
}
