import Devices
import Foundation
import TestSupport
import Testing

@Suite struct ComodulePropertyTableTests {
    /// Writes `text` to a fresh file in a temporary directory and returns its path.
    func temporaryFile(_ text: String) throws -> String {
        let directory = URL(fileURLWithPath: TestScratch.path("comodule-tables-\(UUID().uuidString)"))
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent("table.json")
        try Data(text.utf8).write(to: url)
        return url.path
    }

    func loadError(_ text: String) throws -> ComodulePropertyTableError? {
        let path = try temporaryFile(text)
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        do {
            let table = try ComodulePropertyTable.load(contentsOfFile: path)
            Issue.record("loaded \(table.properties.count) properties from a bad file")
            return nil
        } catch {
            return error
        }
    }

    static let goodFile = """
        {
          "version": 1,
          "properties": [
            { "index": 1, "identifier": "speed", "type": "range", "unit": "kilometer_per_hour",
              "rawWidth": 2, "step": 0.1, "lowerBound": 0, "upperBound": 100 },
            { "index": 4, "identifier": "lights", "type": "states", "rawWidth": 1,
              "states": ["disabled", "blinking", "enabled"], "writable": true },
            { "index": 9, "identifier": "motor_temperature", "type": "range", "unit": "celsius",
              "rawWidth": 1, "signed": true, "step": 1, "lowerBound": -20, "upperBound": 150 },
            { "index": 16, "identifier": "motor_serial", "type": "raw" }
          ]
        }
        """

    @Test func defaultTableMatchesTheSpec() throws {
        let table = ComodulePropertyTable.default
        #expect(table.properties.map(\.index) == [1, 2, 3, 4, 5, 6, 7, 16])
        #expect(
            table.properties.map(\.identifier) == [
                "speed", "state_of_charge", "odometer", "lights", "assist_level", "locked", "battery_temperature",
                "motor_serial",
            ]
        )
        #expect(
            table.properties.map(\.unit) == ["kilometer_per_hour", "percent", "kilometer", "", "", "", "celsius", ""]
        )
        #expect(table.properties.map(\.rawWidth) == [2, 1, 4, 1, 1, 1, 2, 8])
        #expect(table.properties.map(\.isSigned) == [false, false, false, false, false, false, true, false])
        #expect(table[1]?.type == .range(step: 0.1, lowerBound: 0, upperBound: 100))
        #expect(table[2]?.type == .range(step: 1, lowerBound: 0, upperBound: 100))
        #expect(table[3]?.type == .range(step: 0.1, lowerBound: 0, upperBound: 429_496_729.5))
        #expect(table[4]?.type == .states(["disabled", "blinking", "enabled"]))
        #expect(table[5]?.type == .range(step: 1, lowerBound: 0, upperBound: 5))
        #expect(table[6]?.type == .states(["unlocked", "locked"]))
        #expect(table[7]?.type == .range(step: 0.1, lowerBound: -40, upperBound: 100))
        #expect(table[16]?.type == .raw)
        #expect(table[8] == nil)
        #expect(table.property(identifier: "lights")?.index == 4)
        #expect(table.property(identifier: "nope") == nil)
    }

    @Test func defaultTableRoundTripsThroughItsJSONFile() throws {
        let json = ComodulePropertyTable.default.json()
        #expect(try ComodulePropertyTable(json: json) == ComodulePropertyTable.default)
        let text = String(decoding: json, as: UTF8.self)
        #expect(text.contains(#""identifier" : "battery_temperature""#))
    }

    @Test func goodFileLoadsAndDrivesTheDecoder() throws {
        let path = try temporaryFile(Self.goodFile)
        let table = try ComodulePropertyTable.load(contentsOfFile: path)
        #expect(table.properties.count == 4)
        #expect(table[16] == ComoduleProperty(index: 16, identifier: "motor_serial", type: .raw, rawWidth: 8))
        #expect(table[4]?.writable == true && table[1]?.writable == false)
        #expect(
            table[9]
                == ComoduleProperty(
                    index: 9,
                    identifier: "motor_temperature",
                    type: .range(step: 1, lowerBound: -20, upperBound: 150),
                    unit: "celsius",
                    rawWidth: 1,
                    isSigned: true
                )
        )
        let decoder = ComoduleDecoder(table: table)
        let frame = try decoder.decode([0x01, 0x09, 0x00, 0x11, 0x5A], from: ComoduleGATT.propertyStream)
        #expect(frame.identifier == "motor_temperature" && frame.value == .range(70))
        #expect(throws: ComoduleDecodeError.self) {
            try decoder.decode([0x01, 0x02, 0x00, 0x01, 0x10], from: ComoduleGATT.propertyStream)
        }
    }

    @Test func missingFileIsUnreadable() throws {
        do {
            _ = try ComodulePropertyTable.load(contentsOfFile: "/nonexistent/dir/table.json")
            Issue.record("loaded a missing file")
        } catch {
            #expect(error.code == .unreadableFile)
            #expect(error.description.contains("/nonexistent/dir/table.json"))
        }
    }

    @Test func invalidJSONReportsItsLine() throws {
        let error = try #require(
            try loadError(
                "{\n  \"version\": 1,\n  \"properties\": [\n    { \"index\": 1 \"identifier\": \"a\" }\n  ]\n}"
            )
        )
        #expect(error.code == .invalidJSON)
        #expect(error.line == 4, "\(error)")
        #expect(error.description.contains("column 18"), "\(error)")
        let empty = try #require(try loadError(""))
        #expect(empty.code == .invalidJSON)
        #expect(empty.line == 1)
    }

    struct BadFile: Sendable, CustomTestStringConvertible {
        var name: String
        var json: String
        var code: String
        var field: String?
        var line: Int?
        var testDescription: String { name }
    }

    static let badFiles: [BadFile] = [
        BadFile(name: "no version", json: #"{"properties": []}"#, code: "missingField", field: "version", line: nil),
        BadFile(
            name: "version 2",
            json: #"{"version": 2, "properties": []}"#,
            code: "unsupportedVersion",
            field: "version",
            line: nil
        ),
        BadFile(name: "no properties", json: #"{"version": 1}"#, code: "missingField", field: "properties", line: nil),
        BadFile(
            name: "properties not an array",
            json: #"{"version": 1, "properties": {}}"#,
            code: "wrongType",
            field: "properties",
            line: nil
        ),
        BadFile(
            name: "version a string",
            json: #"{"version": "1", "properties": []}"#,
            code: "wrongType",
            field: "version",
            line: nil
        ),
        BadFile(
            name: "missing identifier",
            json:
                "{\"version\": 1, \"properties\": [\n{\"index\": 1, \"identifier\": \"a\", \"type\": \"raw\"},\n{\"index\": 2, \"type\": \"raw\"}]}",
            code: "missingField",
            field: "properties[1].identifier",
            line: 3
        ),
        BadFile(
            name: "index as a string",
            json:
                "{\"version\": 1,\n \"properties\": [\n {\"index\": \"1\", \"identifier\": \"a\", \"type\": \"raw\"}]}",
            code: "wrongType",
            field: "properties[0].index",
            line: 3
        ),
        BadFile(
            name: "index fractional",
            json: "{\"version\": 1, \"properties\": [\n{\"index\": 1.5, \"identifier\": \"a\", \"type\": \"raw\"}]}",
            code: "invalidValue",
            field: "properties[0].index",
            line: 2
        ),
        BadFile(
            name: "index too large",
            json: #"{"version": 1, "properties": [{"index": 70000, "identifier": "a", "type": "raw"}]}"#,
            code: "invalidValue",
            field: "properties[0].index",
            line: 1
        ),
        BadFile(
            name: "unknown type",
            json: #"{"version": 1, "properties": [{"index": 1, "identifier": "a", "type": "enum"}]}"#,
            code: "invalidValue",
            field: "properties[0].type",
            line: 1
        ),
        BadFile(
            name: "range without step",
            json:
                #"{"version": 1, "properties": [{"index": 1, "identifier": "a", "type": "range", "rawWidth": 1, "lowerBound": 0, "upperBound": 1}]}"#,
            code: "missingField",
            field: "properties[0].step",
            line: 1
        ),
        BadFile(
            name: "range without rawWidth",
            json:
                #"{"version": 1, "properties": [{"index": 1, "identifier": "a", "type": "range", "step": 1, "lowerBound": 0, "upperBound": 1}]}"#,
            code: "missingField",
            field: "properties[0].rawWidth",
            line: 1
        ),
        BadFile(
            name: "zero step",
            json:
                #"{"version": 1, "properties": [{"index": 1, "identifier": "a", "type": "range", "rawWidth": 1, "step": 0, "lowerBound": 0, "upperBound": 1}]}"#,
            code: "invalidValue",
            field: "properties[0].step",
            line: 1
        ),
        BadFile(
            name: "negative step",
            json:
                #"{"version": 1, "properties": [{"index": 1, "identifier": "a", "type": "range", "rawWidth": 1, "step": -1, "lowerBound": 0, "upperBound": 1}]}"#,
            code: "invalidValue",
            field: "properties[0].step",
            line: 1
        ),
        BadFile(
            name: "bounds reversed",
            json:
                #"{"version": 1, "properties": [{"index": 1, "identifier": "a", "type": "range", "rawWidth": 1, "step": 1, "lowerBound": 5, "upperBound": 1}]}"#,
            code: "invalidValue",
            field: "properties[0].upperBound",
            line: 1
        ),
        BadFile(
            name: "width 9",
            json: #"{"version": 1, "properties": [{"index": 1, "identifier": "a", "type": "raw", "rawWidth": 9}]}"#,
            code: "invalidValue",
            field: "properties[0].rawWidth",
            line: 1
        ),
        BadFile(
            name: "width 0",
            json:
                #"{"version": 1, "properties": [{"index": 1, "identifier": "a", "type": "states", "rawWidth": 0, "states": ["x"]}]}"#,
            code: "invalidValue",
            field: "properties[0].rawWidth",
            line: 1
        ),
        BadFile(
            name: "states empty",
            json:
                #"{"version": 1, "properties": [{"index": 1, "identifier": "a", "type": "states", "rawWidth": 1, "states": []}]}"#,
            code: "invalidValue",
            field: "properties[0].states",
            line: 1
        ),
        BadFile(
            name: "state repeated",
            json:
                #"{"version": 1, "properties": [{"index": 1, "identifier": "a", "type": "states", "rawWidth": 1, "states": ["on", "off", "on"]}]}"#,
            code: "invalidValue",
            field: "properties[0].states[2]",
            line: 1
        ),
        BadFile(
            name: "state empty string",
            json:
                #"{"version": 1, "properties": [{"index": 1, "identifier": "a", "type": "states", "rawWidth": 1, "states": ["on", ""]}]}"#,
            code: "invalidValue",
            field: "properties[0].states[1]",
            line: 1
        ),
        BadFile(
            name: "states not strings",
            json:
                #"{"version": 1, "properties": [{"index": 1, "identifier": "a", "type": "states", "rawWidth": 1, "states": [1, 2]}]}"#,
            code: "wrongType",
            field: "properties[0].states[0]",
            line: 1
        ),
        BadFile(
            name: "step on a states property",
            json:
                #"{"version": 1, "properties": [{"index": 1, "identifier": "a", "type": "states", "rawWidth": 1, "step": 1, "states": ["x"]}]}"#,
            code: "invalidValue",
            field: "properties[0].step",
            line: 1
        ),
        BadFile(
            name: "states on a range property",
            json:
                #"{"version": 1, "properties": [{"index": 1, "identifier": "a", "type": "range", "rawWidth": 1, "step": 1, "lowerBound": 0, "upperBound": 1, "states": ["x"]}]}"#,
            code: "invalidValue",
            field: "properties[0].states",
            line: 1
        ),
        BadFile(
            name: "empty identifier",
            json: #"{"version": 1, "properties": [{"index": 1, "identifier": "", "type": "raw"}]}"#,
            code: "invalidValue",
            field: "properties[0].identifier",
            line: 1
        ),
        BadFile(
            name: "duplicate index",
            json:
                "{\"version\": 1, \"properties\": [\n{\"index\": 1, \"identifier\": \"a\", \"type\": \"raw\"},\n\n{\"index\": 1, \"identifier\": \"b\", \"type\": \"raw\"}]}",
            code: "duplicateIndex",
            field: "properties[1].index",
            line: 4
        ),
        BadFile(
            name: "duplicate identifier",
            json:
                "{\"version\": 1, \"properties\": [\n{\"index\": 1, \"identifier\": \"a\", \"type\": \"raw\"},\n{\"index\": 2, \"identifier\": \"a\", \"type\": \"raw\"}]}",
            code: "duplicateIdentifier",
            field: "properties[1].identifier",
            line: 3
        ),
        BadFile(
            name: "writable not a bool",
            json:
                "{\"version\": 1, \"properties\": [\n{\"index\": 1, \"identifier\": \"a\", \"type\": \"raw\", \"writable\": \"yes\"}]}",
            code: "wrongType",
            field: "properties[0].writable",
            line: 2
        ),
        BadFile(
            name: "too many states for the width",
            json:
                #"{"version": 1, "properties": [{"index": 1, "identifier": "a", "type": "states", "rawWidth": 1, "signed": true, "states": [\#((0..<129).map { "\"s\($0)\"" }.joined(separator: ","))]}]}"#,
            code: "invalidValue",
            field: "properties[0].states",
            line: 1
        ),
    ]

    @Test(arguments: badFiles)
    func badFilesGivePreciseErrors(file: BadFile) throws {
        let error = try #require(try loadError(file.json))
        #expect(error.code.description == file.code, "\(error)")
        #expect(error.field == file.field, "\(error)")
        #expect(error.line == file.line, "\(error)")
        #expect(!error.message.isEmpty)
        if let field = file.field { #expect(error.description.contains(field)) }
    }

    @Test func programmaticTablesAreValidatedToo() {
        do {
            _ = try ComodulePropertyTable(properties: [
                ComoduleProperty(index: 1, identifier: "a", type: .raw, rawWidth: 8),
                ComoduleProperty(
                    index: 2,
                    identifier: "b",
                    type: .range(step: .nan, lowerBound: 0, upperBound: 1),
                    rawWidth: 1
                ),
            ])
            Issue.record("accepted a NaN step")
        } catch {
            #expect(error.code == .invalidValue)
            #expect(error.field == "properties[1].step")
            #expect(error.line == nil)
            #expect(error.description == "properties[1].step: step nan must be a finite number above 0")
        }
        #expect(throws: ComodulePropertyTableError.self) {
            try ComodulePropertyTable(properties: [
                ComoduleProperty(
                    index: 1,
                    identifier: "a",
                    type: .range(step: 1, lowerBound: 0, upperBound: .infinity),
                    rawWidth: 1
                )
            ])
        }
        #expect(throws: Never.self) { try ComodulePropertyTable(properties: []) }
    }
}
