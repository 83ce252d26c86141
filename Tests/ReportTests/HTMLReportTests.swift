import Foundation
import Recording
import Testing

@testable import Report

/// The report's embedded data, as far as the tests read it.
struct EmbeddedData: Decodable {
    struct Group: Decodable {
        var name: String
        var lanes: [Lane]
    }
    struct Lane: Decodable {
        var kind: String
        var topic: String
        var min: Double?
        var max: Double?
    }
    var span: Int
    var groups: [Group]
}

@Suite struct HTMLReportTests {
    @Test func theReportsSizeIsBoundedByColumnsNotSamples() throws {
        // 10 s and 60 s at 1 kHz: 10,000 and 60,000 values, both past the finest level's 32,768 columns' worth
        // of detail; the plot data is the same size, and the whole file grows by the event marks only.
        var sizes: [Int] = []
        for seconds in [10, 60] {
            let recording = try ReportTestRecording(seconds: seconds, rate: 1000)
            let builder = try ReportBuilder(directory: recording.directory)
            let data = try builder.build(topics: ["/sim/D1/value"])
            // About 2,048, 8,192 and 32,768 columns: widths rounded up to the index's cell grid (at most 25 %).
            let columns = data.series[0].levels.map(\.columnCount)
            #expect(columns.count == 3)
            for (count, asked) in zip(columns, ReportBuilder.levelColumns) {
                #expect(count <= asked + 1 && count * 5 >= asked * 4, "\(columns)")
            }
            let size = HTMLReport(data).text.utf8.count
            // Eight Base64 characters a column, plus the page and the event marks.
            #expect(size > columns.reduce(0, +) * 8 && size < columns.reduce(0, +) * 8 + 40_000, "\(size)")
            sizes.append(size)
        }
        // Six bytes a column in Base64 (8 characters) over 43,008 columns, plus the page.
        #expect(sizes[1] < 43008 * 8 + 40_000, "\(sizes)")
    }

    @Test func theReportIsSelfContainedAndCarriesItsData() throws {
        let recording = try ReportTestRecording(seconds: 4, rate: 200)
        let builder = try ReportBuilder(directory: recording.directory)
        let data = try builder.build(topics: builder.topics)
        let html = HTMLReport(data).text
        for external in ["http://", "https://", " src=", " href=", "@import", "url("] {
            #expect(!html.contains(external), "\(external)")
        }
        #expect(html.contains("data-from=\"\(data.from)\" data-to=\"\(data.to)\""))
        let json = HTMLReport(data).json
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(parsed["span"] as? Int == Int(data.to - data.from))
        let groups = try #require(parsed["groups"] as? [[String: Any]])
        #expect(groups.map { $0["name"] as? String } == ["/sim/D1"])
        let lanes = try #require(groups[0]["lanes"] as? [[String: Any]])
        #expect(lanes.map { $0["kind"] as? String } == ["numeric", "events"])
        // JSONDecoder, not JSONSerialization: Foundation's JSONSerialization rounds some doubles on Linux.
        let decoded = try JSONDecoder().decode(EmbeddedData.self, from: Data(json.utf8))
        let numeric = try #require(decoded.groups[0].lanes.first)
        #expect(numeric.min == recording.values.map(\.value).min())
        #expect(numeric.max == recording.values.map(\.value).max())
        let losses = try #require(parsed["losses"] as? [[Any]])
        #expect(losses.map { $0[5] as? String } == recording.lossTimes.map { String($0) })
    }

    @Test func textCannotBreakOutOfTheScriptOrMarkup() throws {
        let hostile = "</script><script>alert(1)</script>\u{2028}\"\\"
        let json = ReportText.json(hostile)
        #expect(!json.contains("<") && !json.contains(">") && !json.contains("\u{2028}"))
        let decoded = try JSONSerialization.jsonObject(with: Data("[\(json)]".utf8)) as? [String]
        #expect(decoded == [hostile])
        #expect(ReportText.escaped("<a href=\"x\">&'") == "&lt;a href=&quot;x&quot;&gt;&amp;&#39;")
        #expect(ReportText.json(Double.nan) == "null" && ReportText.json(0.1) == "0.1")
    }

    @Test func quantizedColumnsSpanTheStreamsRangeAndMarkEmptyOnes() throws {
        let level = PlotLevel(
            start: 0, width: 1, counts: [1, 0, 2], minimums: [-1, .nan, 0], maximums: [-1, .nan, 3],
            means: [-1, .nan, 1])
        let bytes = try #require(Data(base64Encoded: QuantizedColumns.encode(level, low: -1, high: 3)))
        let values = stride(from: 0, to: bytes.count, by: 2).map { UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8 }
        #expect(values == [0, 0, 0, 65535, 65535, 65535, 16384, 65534, 32767])
    }

    @Test func theSVGPlotDrawsOneBandPerPixelColumnFromAColumnPerPixel() throws {
        let recording = try ReportTestRecording(seconds: 10, rate: 2000)
        let builder = try ReportBuilder(directory: recording.directory)
        let pixels = SVGPlot.plotWidth(imageWidth: 1000)
        let data = try builder.build(topics: builder.topics, columns: pixels)
        #expect(data.series[0].levels.map(\.columnCount) == [pixels])
        let plot = SVGPlot(data, width: 1000)
        #expect(plot.plotWidth == pixels)
        let svg = plot.text
        #expect(svg.hasPrefix("<?xml") && svg.contains("</svg>"))
        #expect(svg.contains("data-min=\"\(recording.values.map(\.value).min()!)\""))
        #expect(svg.contains("data-max=\"\(recording.values.map(\.value).max()!)\""))
        let band = try #require(svg.components(separatedBy: "<path d=\"").dropFirst().first)
        #expect(band.prefix { $0 != "\"" }.filter { $0 == "M" }.count == pixels)
        // The same band from the 2,048 columns of a report's first level: merged per pixel, one a pixel at most.
        let merged = SVGPlot(try builder.build(topics: builder.topics, levels: 1), width: 1000).text
        let mergedBand = try #require(merged.components(separatedBy: "<path d=\"").dropFirst().first)
        #expect(mergedBand.prefix { $0 != "\"" }.filter { $0 == "M" }.count == pixels)
        // A loss shading rectangle per loss record, on the lane of the stream that lost data only (not on
        // the gesture lane).
        #expect(svg.components(separatedBy: "class=\"loss\"").count - 1 == recording.lossTimes.count)
        let gestures = try #require(svg.range(of: "<g class=\"events\"")).lowerBound
        #expect(!svg[gestures...].contains("class=\"loss\""))
        let first = try #require(recording.lossTimes.first)
        #expect(svg.contains("class=\"loss\" x=\"\(String(format: "%.1f", plot.x(first)))\""))
    }
}
