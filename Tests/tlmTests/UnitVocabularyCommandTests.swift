import Foundation
import Recording
import TestSupport
import Testing

/// A recording made before the unit vocabulary (the committed fixture
/// `diot-jacquard-seed3`, whose index and channels say `degC`, `g`, `bpm`,
/// `%RH`, `steps`) is shown in UCUM codes by `info`, `report` and `export`.
@Suite struct UnitVocabularyCommandTests {
    static let fixture = repositoryRoot + "/Tests/TelemetryTestingRecordingsTests/Fixtures/diot-jacquard-seed3"
    static let former = ["degC", "g", "bpm", "%RH", "steps"]

    /// A copy of the fixture (commands may add files beside a recording).
    static func copy() throws -> String {
        let path = temporaryPath()
        try FileManager.default.copyItem(atPath: fixture, toPath: path)
        return path
    }

    @Test func anOldRecordingsUnitsAreShownAsUCUMCodes() throws {
        let recording = try Self.copy()
        let info = try tlm("info", recording)
        #expect(info.status == 0, "\(info.errors)")
        let lines = info.output.split(separator: "\n").map(String.init)
        // Each stream's row holds its unit as a column of its own.
        for (stream, code) in [
            ("temperature", "Cel"), ("acc_x", "[g]"), ("heart_rate", "/min"), ("humidity", "%"),
            ("activity_step_counter", "{steps}"), ("gyro_x", "deg/s"),
        ] {
            let row = lines.filter { $0.contains("/\(stream) ") }
            #expect(row.count == 1 && row[0].contains("  \(code)  "), "\(stream): \(row)")
        }
        for spelling in Self.former {
            #expect(!lines.contains { $0.contains("  \(spelling)  ") }, "\(spelling): \(info.output)")
        }

        let html = temporaryPath() + ".html"
        let report = try tlm("report", recording, "--topic", "/diot/**", "--output", html)
        #expect(report.status == 0, "\(report.errors)")
        let page = try String(contentsOfFile: html, encoding: .utf8)
        for code in ["Cel", "[g]", "/min", "{steps}"] {
            #expect(page.contains("\"unit\":\"\(code)\""), "\(code)")
            #expect(page.contains("<td>\(code)</td>"), "\(code)")
        }
        for spelling in Self.former where spelling != "g" {
            #expect(!page.contains("\"unit\":\"\(spelling)\"") && !page.contains("<td>\(spelling)</td>"), "\(spelling)")
        }
        #expect(!page.contains("\"unit\":\"g\"") && !page.contains("<td>g</td>"))
    }

    @Test func exportsOfAnOldRecordingCarryTheCodes() throws {
        let recording = try Self.copy()
        // MCAP: the channel metadata's unit.
        let mcap = temporaryPath() + ".mcap"
        let exported = try tlm("export", recording, "--format", "mcap", "--topic", "/diot/**", "--output", mcap)
        #expect(exported.status == 0, "\(exported.errors)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: mcap))
        // A channel metadata entry: "unit" and its value, each a string with a 4-byte little-endian length.
        func entry(_ unit: String) -> Data {
            ["unit", unit].reduce(into: Data()) { data, text in
                data.append(contentsOf: withUnsafeBytes(of: UInt32(text.utf8.count).littleEndian) { Array($0) })
                data.append(contentsOf: Array(text.utf8))
            }
        }
        for code in ["Cel", "[g]", "/min", "%", "{steps}"] {
            #expect(bytes.range(of: entry(code)) != nil, "\(code)")
        }
        for spelling in Self.former {
            #expect(bytes.range(of: entry(spelling)) == nil, "\(spelling)")
        }
        // Parquet: each topic file's `tlm.unit`.
        let directory = temporaryPath()
        let parquet = try tlm(
            "export", recording, "--format", "parquet", "--topic", "/diot/**/temperature", "--output", directory)
        #expect(parquet.status == 0, "\(parquet.errors)")
        let files = try #require(FileManager.default.subpaths(atPath: directory)).filter { $0.hasSuffix(".parquet") }
        #expect(files.count == 1)
        let footer = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + files[0]))
        #expect(footer.range(of: Data("tlm.unit".utf8)) != nil && footer.range(of: Data("Cel".utf8)) != nil)
        #expect(footer.range(of: Data("degC".utf8)) == nil)
    }
}
