import Foundation
import Recording
import TestSupport
import Testing

@testable import Report

/// A recording is untrusted input: its index may lie about values, and its
/// text (kinds, units, names) may carry markup and control characters.
@Suite struct HostileRecordingTests {
    static let hostileText = "<script>alert(1)</script>\u{1}\u{7}\u{1B}[2K&\"'\u{FFFE}"

    @Test func anIndexRowWithItsMinimumAboveItsMaximumIsAClearError() throws {
        let recording = try ReportTestRecording(seconds: 4, rate: 200)
        try IndexCellsTests.sqlite(
            recording.directory + "/index.sqlite",
            "UPDATE chunk_streams SET value_min = value_max + 100, value_max = value_min - 100")
        let builder = try ReportBuilder(directory: recording.directory)
        for columns in [nil, 900] as [Int?] {
            #expect {
                try builder.build(topics: builder.topics, columns: columns)
            } throws: { error in
                let message = (error as? ReportError)?.message ?? ""
                return message.contains("value_max") && message.contains("value_min")
            }
        }
    }

    /// A report's data with one numeric lane whose values are `levels` and range `low`...`high`.
    func data(
        low: Double?, high: Double?, minimums: [Double], maximums: [Double], means: [Double]
    ) throws
        -> ReportData
    {
        let recording = try ReportTestRecording(seconds: 2, rate: 100)
        let builder = try ReportBuilder(directory: recording.directory)
        var data = try builder.build(topics: builder.topics, levels: 1)
        let level = data.series[0].levels[0]
        let count = level.columnCount
        func spread(_ values: [Double]) -> [Double] { (0..<count).map { values[$0 % values.count] } }
        data.series[0].minimum = low
        data.series[0].maximum = high
        data.series[0].levels = [
            PlotLevel(
                start: level.start, width: level.width, counts: [Int](repeating: 1, count: count),
                minimums: spread(minimums), maximums: spread(maximums), means: spread(means))
        ]
        return data
    }

    @Test(
        arguments: [
            (1.0, -1.0), (.nan, 1), (0, .infinity), (-.infinity, .infinity), (.nan, .nan), (-1e308, 1e308),
        ] as [(Double, Double)])
    func noValueTrapsThePlots(low: Double, high: Double) throws {
        let values: [Double] = [.nan, .infinity, -.infinity, 1e308, -1e308, 5, 0]
        let data = try data(
            low: low, high: high, minimums: values, maximums: values.reversed(), means: values.shuffled())
        let png = try PNGPlot(data, width: 600).png()
        #expect(Array(png.prefix(4)) == [0x89, 0x50, 0x4E, 0x47])
        let svg = SVGPlot(data, width: 600).text
        try Self.expectWellFormedXML(svg)
        #expect(!svg.contains("nan") && !svg.contains("inf"))
        #expect(HTMLReport(data).text.contains("</html>"))
    }

    @Test func textFromTheRecordingIsEscapedInHTMLAndSVG() throws {
        let directory = makeTemporaryDirectory() + "/rec"
        let recorder = try Recorder(
            directory: directory, configuration: RecorderConfiguration(),
            session: .init(name: Self.hostileText, source: "simulate"), startTime: ReportTestRecording.start)
        let value = try recorder.addStream(
            StreamDescriptor(
                topic: "/sim/D1/value", kind: .typed, schema: ReportTestRecording.valueSchema, unit: Self.hostileText,
                isNumeric: true))
        for index in 0..<100 {
            let sample = Double(index)
            let bytes = withUnsafeBytes(of: sample.bitPattern.littleEndian) { Array($0) }
            try recorder.write(
                value, logTime: ReportTestRecording.start + UInt64(index) * 10_000_000, payload: [0, 1, 0, 0] + bytes,
                numericValue: sample)
        }
        try recorder.close(at: ReportTestRecording.start + 1_000_000_000)
        // `kind` has a CHECK constraint in recordings made today; an index from elsewhere need not.
        try IndexCellsTests.sqlite(
            directory + "/index.sqlite",
            "PRAGMA ignore_check_constraints = ON; UPDATE streams SET kind = '<script>alert(2)</script>' || char(1)")
        let builder = try ReportBuilder(directory: directory)
        let data = try builder.build(topics: builder.topics)
        #expect(data.streams.map(\.kind) == ["<script>alert(2)</script>\u{1}"])
        let html = HTMLReport(data).text
        // The report's own three scripts (error catcher, data, code) and nothing from the recording.
        #expect(html.components(separatedBy: "<script").count - 1 == 3)
        #expect(!html.contains("<script>alert"))
        #expect(html.contains("&lt;script&gt;alert(2)&lt;/script&gt;"))
        #expect(!html.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" && $0 != "\t" && $0 != "\r" })
        let svg = SVGPlot(try builder.build(topics: builder.topics, columns: 600), width: 600).text
        try Self.expectWellFormedXML(svg)
        #expect(svg.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
    }

    /// Parses `xml` with Python's `xml.etree` (an XML 1.0 parser that refuses control characters).
    static func expectWellFormedXML(_ xml: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        let path = makeTemporaryDirectory() + "/plot.svg"
        try Data(xml.utf8).write(to: URL(fileURLWithPath: path))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", "import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])", path]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "not well-formed XML: \(path)", sourceLocation: sourceLocation)
    }
}
