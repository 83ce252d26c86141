import ROS2
public import Recording

extension ReportBuilder {
    /// Two numeric fields of the typed streams among `topics` against each
    /// other, over `from ..< to` in `time`: two passes over their messages,
    /// one for the ranges and one binning each message on the ``XYData``
    /// grid.
    ///
    /// - Throws: ``ReportError`` when the range is empty, a field is no
    ///   numeric field of any selected stream, no message has both finite,
    ///   or a segment cannot be read.
    public func xy(
        topics: [String], x: String, y: String, from: UInt64? = nil, to: UInt64? = nil, time: MessageTime = .sample
    ) throws(ReportError) -> XYData {
        self.time = time
        let (lower, upper, streams) = try selection(topics: topics, from: from, to: to)
        let plotted = try plottedFields(of: streams, fields: [x, y]).filter { $0.value.count == 2 }.keys.sorted()
        guard !plotted.isEmpty else {
            throw ReportError("no selected stream has both numeric fields \(x) and \(y)")
        }
        // The ranges, then the cells.
        var xLow = Double.infinity
        var xHigh = -Double.infinity
        var yLow = Double.infinity
        var yHigh = -Double.infinity
        try pairs(plotted, x: x, y: y, from: lower, to: upper) { _, a, b in
            xLow = min(xLow, a)
            xHigh = max(xHigh, a)
            yLow = min(yLow, b)
            yHigh = max(yHigh, b)
        }
        guard xLow <= xHigh, yLow <= yHigh, (xHigh - xLow).isFinite, (yHigh - yLow).isFinite else {
            throw ReportError("no message of the selected streams has finite \(x) and \(y) in the range")
        }
        if xLow == xHigh { (xLow, xHigh) = (xLow - 1, xHigh + 1) }
        if yLow == yHigh { (yLow, yHigh) = (yLow - 1, yHigh + 1) }
        let side = XYData.cells
        func cell(_ value: Double, _ low: Double, _ high: Double) -> Int {
            min(side - 1, max(0, Int((value - low) / (high - low) * Double(side))))
        }
        var grids: [String: [Int: Int]] = [:]
        var counts: [String: Int] = [:]
        try pairs(plotted, x: x, y: y, from: lower, to: upper) { topic, a, b in
            grids[topic, default: [:]][cell(a, xLow, xHigh) * side + cell(b, yLow, yHigh), default: 0] += 1
            counts[topic, default: 0] += 1
        }
        let units = Set(streams.filter { plotted.contains($0.topic) }.map(\.unit))
        return XYData(
            session: info.session.name, from: lower, to: upper, xField: x, yField: y,
            unit: units.count == 1 ? units.first! : nil, xRange: xLow...xHigh, yRange: yLow...yHigh,
            streams: plotted.map { topic in
                XYData.Stream(
                    topic: topic, count: counts[topic, default: 0],
                    cells: (grids[topic] ?? [:]).sorted { $0.key < $1.key }.map {
                        XYData.Cell(column: $0.key / side, row: $0.key % side, count: $0.value)
                    })
            })
    }

    /// Each message's `x` and `y` of `topics` in the range, when both are finite.
    private func pairs(
        _ topics: [String], x: String, y: String, from: UInt64, to: UInt64,
        _ body: (String, Double, Double) -> Void
    ) throws(ReportError) {
        do {
            try reader.forEachTypedMessage(topics: topics, from: from, to: to, time: time) { message in
                var a: Double?
                var b: Double?
                for field in message.fields {
                    if field.name == x { a = field.value.number }
                    if field.name == y { b = field.value.number }
                }
                guard let a, let b, a.isFinite, b.isFinite else { return }
                body(message.message.topic, a, b)
            }
        } catch {
            throw ReportError(error.message)
        }
    }
}
