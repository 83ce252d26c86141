import Foundation
import Testing

@Suite struct DecodeCommandTests {
    @Test func decodesTheSpecsDiotExamplesAsJSONLines() throws {
        let result = try tlm(
            "decode", "--family", "diot", "--characteristic", "D001",
            "09 00 00 80 3F 0A 00 00 00 00 0B 00 00 80 BF", "07:66:66:12:42", "2B00F15365", "00")
        #expect(result.status == 0, "\(result.errors)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(
            lines == [
                #"{"channel":1,"feature":"accX","feature_code":9,"index":0,"kind":"record","raw":1065353216,"value":1,"value_type":"float"}"#,
                #"{"channel":1,"feature":"accY","feature_code":10,"index":1,"kind":"record","raw":0,"value":0,"value_type":"float"}"#,
                #"{"channel":1,"feature":"accZ","feature_code":11,"index":2,"kind":"record","raw":3212836864,"value":-1,"value_type":"float"}"#,
                #"{"channel":1,"feature":"temperature","feature_code":7,"index":0,"kind":"record","raw":1108502118,"value":36.6,"value_type":"float"}"#,
                #"{"channel":1,"feature":"currentDate","feature_code":43,"index":0,"kind":"record","raw":1700000000,"value":1700000000,"value_type":"date"}"#,
                #"{"channel":1,"kind":"channel_empty"}"#,
            ])
    }

    @Test func malformedNotificationsPrintATypedErrorAndExitThree() throws {
        let result = try tlm("decode", "--family", "diot", "--characteristic", "D002", "0448000000", "010203")
        #expect(result.status == 3)
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        #expect(lines[0].contains(#""feature":"heartRate""#) && lines[0].contains(#""value":72"#))
        let failure = try JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as? [String: Any]
        #expect(failure?["notification"] as? Int == 1)
        #expect(failure?["bytes"] as? String == "010203")
        #expect((failure?["error"] as? String)?.isEmpty == false)
    }

    @Test func readsOneNotificationPerLineFromAFile() throws {
        let path = temporaryPath() + ".txt"
        try "# IMU\n09 00 00 80 3F\n\n04 48 00 00 00\n".write(toFile: path, atomically: true, encoding: .utf8)
        let result = try tlm("decode", "--family", "diot", "--characteristic", "d001", "--file", path)
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.split(separator: "\n").count == 2)
    }

    @Test(arguments: [
        (["decode", "--family", "diot", "--characteristic", "D001", "0G"], "not hex"),
        (["decode", "--family", "diot", "--characteristic", "D001", "123"], "not hex"),
        (["decode", "--family", "diot", "--characteristic", "nope", "00"], "is not a characteristic UUID"),
        (["decode", "--family", "martian", "--characteristic", "D001", "00"], "family"),
        (["decode", "--family", "diot", "--characteristic", "D001"], "give notifications"),
        (["decode", "--family", "diot", "--characteristic", "D001", "--file", "/nonexistent"], "cannot read"),
    ])
    func badArgumentsAreOneClearError(arguments: [String], expected: String) throws {
        let result = try finish(try start(tlmPath, arguments))
        #expect(result.status != 0 && result.status != 3)
        #expect(result.errors.contains(expected), "stderr: \(result.errors)")
    }
}

@Suite struct DecodeEveryFamilyTests {
    @Test func decodesTheSpecsJacquardExamplesIncludingAFragmentedMessage() throws {
        let notify = "d2f2b8d1-d165-445c-b0e1-2d6b642ec57b"
        let single = try tlm(
            "decode", "--family", "jacquard", "--characteristic", notify,
            "C0 0D 08 00 10 17 18 00 CA 07 04 08 32 10 02", "C0 0B 08 08 10 05 AA 39 04 0A 02 08 01")
        #expect(single.status == 0, "\(single.errors)")
        #expect(
            single.output.split(separator: "\n") == [
                #"{"battery_status":{"battery_level":50,"charging_status":"notCharging"}}"#,
                #"{"gesture":{"component_id":0,"event":"doubleTap","timestamp_ticks":0}}"#,
            ])
        // The gesture message split over two fragments: FIRST (80, length 0B) then LAST (41).
        let split = try tlm(
            "decode", "--family", "jacquard", "--characteristic", notify,
            "80 0B 08 08 10 05 AA", "41 39 04 0A 02 08 03")
        #expect(split.status == 0, "\(split.errors)")
        #expect(split.output.contains(#""event":"brushOut""#))
        #expect(split.output.split(separator: "\n").count == 1)
    }

    @Test func decodesComoduleFjordenAndObviousProfiles() throws {
        let comodule = try tlm(
            "decode", "--family", "comodule", "--characteristic", "c0de0002-0000-4000-8000-00805f9b34fb",
            "01 01 00 02 E8 03", "01 04 00 01 02")
        #expect(comodule.status == 0, "\(comodule.errors)")
        #expect(comodule.output.contains(#""identifier":"speed""#) && comodule.output.contains(#""value":100"#))
        #expect(comodule.output.contains(#""identifier":"enabled","index":2,"type":"state""#))

        let fjorden = try tlm(
            "decode", "--family", "fjorden", "--characteristic", "f10d0002-0000-4000-8000-00805f9b34fb",
            "03 04", "00")
        #expect(fjorden.status == 0, "\(fjorden.errors)")
        #expect(fjorden.output.contains(#"{"grip_event":{"event":"dialButtonCW","repeat_count":4}}"#))

        // 1002003 = 0x000F4A13 → "1.2.3"; 1000000000 is flagged invalid, not an error.
        let obvious = try tlm(
            "decode", "--family", "obvious", "--characteristic", "0b710002-0000-4000-8000-00805f9b34fb",
            "02 13 4A 0F 00 00 00 00 00", "02 00 CA 9A 3B 00 00 00 00")
        #expect(obvious.status == 0, "\(obvious.errors)")
        #expect(obvious.output.contains("1.2.3"))
        #expect(obvious.output.split(separator: "\n").count == 2)
    }

    @Test func aComodulePropertyTableFileIsUsedAndABadOneIsAClearError() throws {
        let bad = temporaryPath() + ".json"
        try #"{"properties": [{"index": 1}]}"#.write(toFile: bad, atomically: true, encoding: .utf8)
        let result = try tlm(
            "decode", "--family", "comodule", "--characteristic", "c0de0002-0000-4000-8000-00805f9b34fb",
            "--property-table", bad, "01 01 00 02 E8 03")
        #expect(result.status == 1)
        #expect(result.errors.contains(bad))
    }
}
