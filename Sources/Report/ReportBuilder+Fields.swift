import ROS2
import Recording
import RecordingQueries

extension ReportBuilder {
    /// The numeric fields of a schema a plot can draw: its scalar integer
    /// and floating-point fields, in schema order (not booleans, strings,
    /// times or arrays).
    static func numericFields(of definition: ROS2MessageDefinition) -> [String] {
        definition.fields.filter { field in
            guard field.arrayLength == nil else { return false }
            switch field.type {
            case .int8, .uint8, .int16, .uint16, .int32, .uint32, .int64, .uint64, .float32, .float64: return true
            default: return false
            }
        }.map(\.name)
    }

    /// The fields a typed stream is plotted by when no field is asked for:
    /// its vector components (numeric fields named `x`, `y`, `z` or ending
    /// in `_x`, `_y`, `_z`, such as an IMU's `accel_x` … `gyro_z`) when it
    /// has two or more, else none (the stream stays a row of event marks).
    static func vectorFields(of definition: ROS2MessageDefinition) -> [String] {
        let components = numericFields(of: definition).filter { name in
            let lower = name.lowercased()
            return ["x", "y", "z"].contains(lower) || ["_x", "_y", "_z"].contains(where: { lower.hasSuffix($0) })
        }
        return components.count >= 2 ? components : []
    }

    /// The fields to plot of each typed, non-numeric stream among `streams`:
    /// the vector components by default, else those of `fields` each stream has.
    ///
    /// - Throws: ``ReportError`` when a field of `fields` is no numeric field
    ///   of any of the streams (naming the fields they have).
    func plottedFields(
        of streams: [RecordingInfo.Stream], fields: [String]?
    ) throws(ReportError) -> [String: [String]] {
        let typed = streams.filter { !isNumeric($0.topic) && Self.isEventStream($0) }
        guard !typed.isEmpty else {
            if let fields, let first = fields.first {
                throw ReportError("no selected stream has fields to plot (asked for \(first)): select a typed stream")
            }
            return [:]
        }
        let definitions: [String: (String, ROS2MessageDefinition)]
        do { definitions = try reader.schemaDefinitions() } catch { throw ReportError(error.message) }
        var result: [String: [String]] = [:]
        var found = Set<String>()
        var available = Set<String>()
        for stream in typed {
            guard let (_, definition) = definitions[stream.topic] else { continue }
            let numeric = Self.numericFields(of: definition)
            available.formUnion(numeric)
            let chosen = fields.map { wanted in wanted.filter(numeric.contains) } ?? Self.vectorFields(of: definition)
            found.formUnion(chosen)
            if !chosen.isEmpty { result[stream.topic] = chosen }
        }
        if let fields, let missing = fields.first(where: { !found.contains($0) }) {
            let names = available.sorted().joined(separator: ", ")
            throw ReportError(
                "no selected stream has a numeric field \(missing)"
                    + (names.isEmpty ? "" : " (numeric fields of the selected streams: \(names))"))
        }
        return result
    }

    /// The levels of each of `fields` of a typed stream, read from its
    /// messages in one pass: the finest level binned per column, the coarser
    /// ones merged from it (``PlotLevel/merged(by:)``), finer levels kept
    /// while they refine the coarser one as for numeric streams.
    func fieldSeries(
        _ stream: RecordingInfo.Stream, fields: [String], from: UInt64, to: UInt64, columns: [Int]
    ) throws(RecordingError) -> [ReportData.Series] {
        let finest = UInt64(columns.last!)
        let width = max(1, (to - from + finest - 1) / finest)
        let count = Int((to - from + width - 1) / width)
        let empty = PlotLevel(
            start: from, width: width, counts: [Int](repeating: 0, count: count),
            minimums: [Double](repeating: .nan, count: count), maximums: [Double](repeating: .nan, count: count),
            means: [Double](repeating: 0, count: count))
        var levels = [PlotLevel](repeating: empty, count: fields.count)
        let stamped = time == .sample ? try reader.sampleTimeTopics().contains(stream.topic) : false
        var indices: [Int?] = []
        try reader.forEachTypedMessage(topics: [stream.topic], from: from, to: to, time: time) { message in
            let instant = time.of(message.message, stamped: stamped)
            guard instant >= from, instant < to else { return }
            let column = Int((instant - from) / width)
            if indices.isEmpty {
                indices = fields.map { name in message.fields.firstIndex { $0.name == name } }
            }
            for (slot, index) in indices.enumerated() {
                guard let index, index < message.fields.count, let value = message.fields[index].value.number,
                    value.isFinite
                else { continue }
                levels[slot].add(value, at: column)
            }
        }
        return zip(fields, levels).map { field, finestLevel in
            var finest = finestLevel
            for column in finest.counts.indices {
                finest.means[column] =
                    finest.counts[column] > 0 ? finest.means[column] / Double(finest.counts[column]) : .nan
            }
            var all = [finest]
            for _ in 1..<columns.count { all.insert(all[0].merged(by: 4), at: 0) }
            var result = [all[0]]
            for level in all.dropFirst() {
                guard result.last!.isRefined(by: level) else { break }
                result.append(level)
            }
            let filled = finest.counts.indices.filter { finest.counts[$0] > 0 }
            return ReportData.Series(
                topic: stream.topic, field: field, unit: stream.unit, count: finest.counts.reduce(0, +),
                minimum: filled.map { finest.minimums[$0] }.min(), maximum: filled.map { finest.maximums[$0] }.max(),
                levels: result)
        }
    }
}

extension PlotLevel {
    /// Adds a value to a column (its mean holds the sum until the level is finished).
    fileprivate mutating func add(_ value: Double, at column: Int) {
        guard column >= 0, column < counts.count else { return }
        if counts[column] == 0 {
            minimums[column] = value
            maximums[column] = value
        } else {
            minimums[column] = min(minimums[column], value)
            maximums[column] = max(maximums[column], value)
        }
        counts[column] += 1
        means[column] += value
    }
}
