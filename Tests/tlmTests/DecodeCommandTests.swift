import Foundation
import Testing

/// `tlm decode` end to end: the printed JSON lines, exit status 3 for a
/// malformed notification, argument errors (the decoding itself:
/// FamiliesTests' HexNotificationsTests).
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
