import Devices
import Families
import Foundation
import TestSupport
import Testing

/// `tlm decode`'s work in process: hex text parsed, files read, notifications decoded.
@Suite struct HexNotificationsTests {
    /// Each outcome as `tlm decode` prints it: sorted snake_case keys.
    static func json(_ outcomes: [HexNotifications.Outcome]) throws -> [String] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return try outcomes.map { outcome in
            switch outcome {
            case .value(let value): String(decoding: try encoder.encode(value), as: UTF8.self)
            case .failure(let failure): String(decoding: try encoder.encode(failure), as: UTF8.self)
            }
        }
    }

    static func failures(_ outcomes: [HexNotifications.Outcome]) -> [HexNotifications.Failure] {
        outcomes.compactMap { if case .failure(let failure) = $0 { failure } else { nil } }
    }

    @Test(
        arguments: [
            ("09 00 00 80 3F", [0x09, 0x00, 0x00, 0x80, 0x3F]),
            ("07:66:66:12:42", [0x07, 0x66, 0x66, 0x12, 0x42]),
            ("2b-00-f1\t53 65", [0x2B, 0x00, 0xF1, 0x53, 0x65]),
            ("0x0A0b", [0x0A, 0x0B]),
            ("", []),
        ] as [(String, [UInt8])])
    func hexParsesWithSeparatorsAndAPrefix(text: String, bytes: [UInt8]) {
        #expect(HexNotifications.parse(text) == bytes)
    }

    @Test(arguments: ["0G", "123", "0x1", "zz", "１２"])
    func textThatIsNotWholeBytesOfHexIsNil(text: String) {
        #expect(HexNotifications.parse(text) == nil)
    }

    @Test func linesLeaveOutBlankLinesAndComments() {
        #expect(
            HexNotifications.lines(in: "# IMU\n09 00 00 80 3F\n\n   \n04 48 00 00 00\r\n#x\n")
                == ["09 00 00 80 3F", "04 48 00 00 00"])
    }

    @Test func aFileIsReadAsLinesAndAnUnreadableOneIsAClearError() throws {
        let path = makeTemporaryDirectory() + "/packets.txt"
        try "# IMU\n09 00 00 80 3F\n\n04 48 00 00 00\r\n#x\n".write(toFile: path, atomically: true, encoding: .utf8)
        // The lines of a file decode one at a time, numbered after the arguments.
        var outcomes: [String] = []
        try HexNotifications.decode(
            ["0448000000", "00 00"], text: try HexNotifications.text(ofFile: path),
            family: .diot, characteristic: CharacteristicUUID("D001")!
        ) { outcome in
            switch outcome {
            case .value(let value): outcomes.append("\(value)")
            case .failure(let failure): outcomes.append("failure \(failure.notification)")
            }
        }
        #expect(outcomes.count == 4 && outcomes.filter { $0.hasPrefix("failure") } == ["failure 1"])
        #expect(outcomes == (try Self.described(["0448000000", "00 00", "09 00 00 80 3F", "04 48 00 00 00"])))
        #expect(throws: HexNotificationError("cannot read /nonexistent: it does not exist")) {
            try HexNotifications.text(ofFile: "/nonexistent")
        }
        let directory = makeTemporaryDirectory()
        let error = #expect(throws: HexNotificationError.self) { try HexNotifications.text(ofFile: directory) }
        #expect(error?.message.hasPrefix("cannot read \(directory): it is a directory, not a regular file") == true)
        // A line of the file that is not hex decodes nothing, and is numbered after the arguments.
        try "09 00 00 80 3F\nnot hex\n".write(toFile: path, atomically: true, encoding: .utf8)
        var emitted = 0
        #expect(throws: HexNotificationError("notification 2 is not hex: 'not hex'")) {
            try HexNotifications.decode(
                ["0448000000"], text: try HexNotifications.text(ofFile: path), family: .diot,
                characteristic: CharacteristicUUID("D001")!
            ) { _ in emitted += 1 }
        }
        #expect(emitted == 0)
    }

    /// The outcomes of `hex` decoded as arguments, described as the streaming test describes them.
    static func described(_ hex: [String]) throws -> [String] {
        try HexNotifications.decode(hex, family: .diot, characteristic: CharacteristicUUID("D001")!).map { outcome in
            switch outcome {
            case .value(let value): "\(value)"
            case .failure(let failure): "failure \(failure.notification)"
            }
        }
    }

    /// A FIFO would block a read and `/dev/zero` never end: both refused before any read.
    @Test func aFIFOADirectoryOrADeviceAsFileIsRefused() throws {
        let fifo = makeTemporaryDirectory() + "/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        for (path, kind) in [(fifo, "a FIFO"), ("/dev/zero", "a character device")] {
            #expect(throws: HexNotificationError("cannot read \(path): it is \(kind), not a regular file")) {
                try HexNotifications.text(ofFile: path)
            }
        }
    }

    @Test func theSpecsDiotExamplesDecodeToTheirValues() throws {
        let outcomes = try HexNotifications.decode(
            ["09 00 00 80 3F 0A 00 00 00 00 0B 00 00 80 BF", "07:66:66:12:42", "2B00F15365", "00"],
            family: .diot, characteristic: CharacteristicUUID("D001")!)
        #expect(
            try Self.json(outcomes) == [
                #"{"channel":1,"feature":"accX","feature_code":9,"index":0,"kind":"record","raw":1065353216,"value":1,"value_type":"float"}"#,
                #"{"channel":1,"feature":"accY","feature_code":10,"index":1,"kind":"record","raw":0,"value":0,"value_type":"float"}"#,
                #"{"channel":1,"feature":"accZ","feature_code":11,"index":2,"kind":"record","raw":3212836864,"value":-1,"value_type":"float"}"#,
                #"{"channel":1,"feature":"temperature","feature_code":7,"index":0,"kind":"record","raw":1108502118,"value":36.6,"value_type":"float"}"#,
                #"{"channel":1,"feature":"currentDate","feature_code":43,"index":0,"kind":"record","raw":1700000000,"value":1700000000,"value_type":"date"}"#,
                #"{"channel":1,"kind":"channel_empty"}"#,
            ])
    }

    @Test func aMalformedNotificationIsAFailureAndTheOthersStillDecode() throws {
        let outcomes = try HexNotifications.decode(
            ["010203", "0448000000"], family: .diot, characteristic: CharacteristicUUID("D002")!)
        let failures = Self.failures(outcomes)
        #expect(failures.map(\.notification) == [0] && failures.map(\.bytes) == ["010203"])
        #expect(failures.first?.error.isEmpty == false)
        let lines = try Self.json(outcomes)
        #expect(lines.count == 2)
        #expect(lines[0].hasPrefix(#"{"bytes":"010203","error":"#) && lines[0].hasSuffix(#","notification":0}"#))
        #expect(lines[1].contains(#""feature":"heartRate""#) && lines[1].contains(#""value":72"#))
    }

    @Test func oneDecoderReassemblesJacquardFragments() throws {
        let notify = CharacteristicUUID("d2f2b8d1-d165-445c-b0e1-2d6b642ec57b")!
        let single = try HexNotifications.decode(
            ["C0 0D 08 00 10 17 18 00 CA 07 04 08 32 10 02", "C0 0B 08 08 10 05 AA 39 04 0A 02 08 01"],
            family: .jacquard, characteristic: notify)
        #expect(
            try Self.json(single) == [
                #"{"battery_status":{"battery_level":50,"charging_status":"notCharging"}}"#,
                #"{"gesture":{"component_id":0,"event":"doubleTap","timestamp_ticks":0}}"#,
            ])
        // The gesture message split over two fragments: FIRST (80, length 0B) then LAST (41).
        let split = try HexNotifications.decode(
            ["80 0B 08 08 10 05 AA", "41 39 04 0A 02 08 03"], family: .jacquard, characteristic: notify)
        let lines = try Self.json(split)
        #expect(lines.count == 1 && lines.first?.contains(#""event":"brushOut""#) == true)
    }

    @Test func comoduleFjordenAndObviousProfilesDecode() throws {
        let comodule = try Self.json(
            HexNotifications.decode(
                ["01 01 00 02 E8 03", "01 04 00 01 02"], family: .comodule,
                characteristic: CharacteristicUUID("c0de0002-0000-4000-8000-00805f9b34fb")!)
        ).joined(separator: "\n")
        #expect(comodule.contains(#""identifier":"speed""#) && comodule.contains(#""value":100"#))
        #expect(comodule.contains(#""identifier":"enabled","index":2,"type":"state""#))

        let fjorden = try Self.json(
            HexNotifications.decode(
                ["03 04", "00"], family: .fjorden,
                characteristic: CharacteristicUUID("f10d0002-0000-4000-8000-00805f9b34fb")!))
        #expect(fjorden.contains(#"{"grip_event":{"event":"dialButtonCW","repeat_count":4}}"#))

        // 1002003 = 0x000F4A13 → "1.2.3"; 1000000000 is flagged invalid, not an error.
        let obvious = try HexNotifications.decode(
            ["02 13 4A 0F 00 00 00 00 00", "02 00 CA 9A 3B 00 00 00 00"], family: .obvious,
            characteristic: CharacteristicUUID("0b710002-0000-4000-8000-00805f9b34fb")!)
        #expect(Self.failures(obvious).isEmpty)
        let lines = try Self.json(obvious)
        #expect(lines.count == 2 && lines[0].contains("1.2.3"))
    }

    @Test func aLineThatIsNotHexDecodesNothing() {
        #expect(throws: HexNotificationError("notification 1 is not hex: '123'")) {
            try HexNotifications.decode(["00", "123"], family: .diot, characteristic: CharacteristicUUID("D001")!)
        }
    }

    @Test func aFamilyTheRegistryDoesNotKnowIsAClearError() {
        let registry = FamilyRegistry(
            FamilyRegistry.builtIn.families.filter { $0 != .diot }.compactMap { FamilyRegistry.builtIn[$0] })
        #expect(throws: HexNotificationError("no device family 'diot' in this build")) {
            try HexNotifications.decode(
                ["00"], family: .diot, characteristic: CharacteristicUUID("D001")!, registry: registry)
        }
    }

    @Test func aBadPropertyTableIsAnErrorNamingTheFile() throws {
        let bad = makeTemporaryDirectory() + "/table.json"
        try #"{"properties": [{"index": 1}]}"#.write(toFile: bad, atomically: true, encoding: .utf8)
        let error = #expect(throws: HexNotificationError.self) {
            try HexNotifications.decode(
                ["01 01 00 02 E8 03"], family: .comodule,
                characteristic: CharacteristicUUID("c0de0002-0000-4000-8000-00805f9b34fb")!, propertyTable: bad)
        }
        #expect(error?.message.hasPrefix(bad + ": ") == true)
    }
}
