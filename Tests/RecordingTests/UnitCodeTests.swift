import Devices
import Foundation
import GRDB
import Quantities
import TestSupport
import Testing

@testable import Recording

/// One unit vocabulary: former spellings read as UCUM codes, codes and
/// unknown units unchanged, and the recorder writing codes.
@Suite struct UnitCodeTests {
    /// Every spelling earlier versions wrote: DIoT's table, the Comodule
    /// SDK's identifiers and the pipeline `map` names.
    static let former: [String: String] = [
        "degC": "Cel", "g": "[g]", "%RH": "%", "bpm": "/min", "steps": "{steps}",
        "celsius": "Cel", "kilometer_per_hour": "km/h", "kilometer": "km", "percent": "%",
        "meter_per_second": "m/s", "mile_per_hour": "[mi_i]/h", "meter_per_second_squared": "m/s2",
        "meter": "m", "mile": "[mi_i]", "kelvin": "K", "fahrenheit": "[degF]", "radian": "rad",
        "degree": "deg", "radian_per_second": "rad/s", "degree_per_second": "deg/s", "fraction": "1",
        "second": "s", "millisecond": "ms",
    ]

    @Test func everyFormerSpellingReadsAsItsCode() {
        for (spelling, code) in Self.former {
            #expect(UnitCode.canonical(spelling) == code, "\(spelling)")
        }
        #expect(UnitCode.formerSpellings == Self.former)
        // A code is a fixed point: reading twice changes nothing.
        for code in Set(Self.former.values) {
            #expect(UnitCode.canonical(code) == code, "\(code)")
        }
    }

    @Test func unknownUnitsAndCodesPassThroughUnchanged() {
        for unit in [
            "Cel", "km/h", "m/s2", "%", "V", "mV", "s", "ms", "deg", "[g]", "lx", "", "G", "DEGC", "m\u{1B}[2K",
        ] {
            #expect(UnitCode.canonical(unit) == unit, "\(unit)")
        }
        #expect(UnitCode.canonical(nil as String?) == nil)
        #expect(UnitCode.canonical("celsius" as String?) == "Cel")
    }

    @Test func devicesNameTheirUnitsInCodes() {
        // DIoT's table is written in codes: none is a former spelling.
        let diot = (0...255).compactMap { DiotFeature(rawValue: UInt8($0)).unit }
        #expect(diot.count > 10)
        #expect(diot.allSatisfy { UnitCode.canonical($0) == $0 }, "\(diot)")
        #expect(DiotFeature.temperature.unit == "Cel" && DiotFeature.accX.unit == "[g]")
        // Comodule's SDK identifiers each have a code.
        let comodule = ComodulePropertyTable.default.properties.map(\.unit).filter { !$0.isEmpty }
        #expect(comodule.map { UnitCode.canonical($0) } == ["km/h", "%", "km", "Cel"])
    }

    @Test func theRecorderWritesCodesAndReadersShowThem() throws {
        let directory = makeTemporaryDirectory() + "/rec"
        let recorder = try Recorder(
            directory: directory, session: .init(name: "units", source: "simulate", host: "test"), startTime: 0)
        let schema = MessageSchema(name: "test/msg/Value", text: "float64 value")
        let temperature = try recorder.addStream(
            StreamDescriptor(topic: "/d/temperature", kind: .typed, schema: schema, unit: "celsius", isNumeric: true))
        let light = try recorder.addStream(
            StreamDescriptor(topic: "/d/light", kind: .typed, schema: schema, unit: "lx", isNumeric: true))
        let payload: [UInt8] = [0, 1, 0, 0] + withUnsafeBytes(of: (21.5).bitPattern.littleEndian) { Array($0) }
        try recorder.write(temperature, logTime: 1_000, payload: payload, numericValue: 21.5)
        try recorder.write(light, logTime: 1_000, payload: payload, numericValue: 21.5)
        try recorder.close(at: 2_000)

        // The index as written (not read through the mapping).
        let index = try DatabaseQueue(path: directory + "/index.sqlite")
        let written = try index.read { db in
            try Dictionary(
                uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT topic, unit FROM streams WHERE unit IS NOT NULL")
                    .map { ($0["topic"] as String, $0["unit"] as String) })
        }
        #expect(written == ["/d/temperature": "Cel", "/d/light": "lx"])
        let context = try RecordingReader(directory: directory).exportContext(topics: ["/d/temperature"])
        #expect(context.topics.first?.unit == "Cel")
        #expect(context.topics.first?.channelMetadata["unit"] == "Cel")
    }

    @Test func aFormerSpellingInAnOldFilesChannelIsReadAsItsCode() {
        let topic = ExportTopic(
            topic: "/comodule/S/speed", kind: .typed, unit: "kilometer_per_hour", schemaName: "s",
            schemaEncoding: "ros2msg", schemaData: [], messageEncoding: "cdr",
            channelMetadata: ["unit": "kilometer_per_hour", "kind": "typed"])
        #expect(topic.unit == "km/h" && topic.channelMetadata == ["unit": "km/h", "kind": "typed"])
    }
}
