import Devices
import Foundation
import ROS2
import Recording
import TestSupport
import Testing

/// Issue 36 item 12: a name or a string value from a device, a capture or a
/// recording never reaches the terminal as control characters.
@Suite struct TerminalEscapeCommandTests {
    @Test func infoAndCatShowControlCharactersEscaped() throws {
        let evil = "tag\u{1B}]0;owned\u{07}\u{1B}[2K"
        let escaped = "tag\\e]0;owned\\u{7}\\e[2K"
        let directory = temporaryPath()
        let recorder = try Recorder(
            directory: directory, session: .init(name: "s\u{1B}[31m", source: "test"), startTime: 1_000)
        let device = try recorder.addDevice(family: .diot, identifier: "D1", name: evil)
        let stream = try recorder.addStream(
            StreamDescriptor(
                topic: "/diot/D1/debug_log", kind: .event,
                schema: MessageSchema(name: "t/msg/Line", text: "string line"),
                device: device))
        var cdr = CDRWriter()
        cdr.write(evil)
        try recorder.write(stream, logTime: 2_000, payload: cdr.bytes)
        try recorder.close(at: 3_000)

        let info = try tlm("info", directory)
        #expect(info.status == 0, "\(info.errors)")
        #expect(!info.output.contains("\u{1B}") && !info.output.contains("\u{07}"))
        #expect(info.output.contains("D1  \(escaped)"), "\(info.output)")
        #expect(info.output.contains("s\\e[31m (test)"))
        let cat = try tlm("cat", directory, "--format", "table")
        #expect(cat.status == 0, "\(cat.errors)")
        #expect(!cat.output.contains("\u{1B}"))
        #expect(cat.output.contains("line=\(escaped)"), "\(cat.output)")
        // JSON keeps the text exactly (escaped as JSON does).
        let json = try tlm("cat", directory)
        #expect(json.output.contains("\\u001b]0;owned\\u0007"), "\(json.output)")
    }
    /// Found by HostileTextFuzzTests: info's stream table printed a unit (and
    /// its loss lines a reason) from the index as it was.
    @Test func infoEscapesUnitsAndLossReasons() throws {
        let directory = temporaryPath()
        let recorder = try Recorder(directory: directory, session: .init(name: "s", source: "test"), startTime: 1_000)
        let stream = try recorder.addStream(
            StreamDescriptor(
                topic: "/t/x", kind: .typed, schema: MessageSchema(name: "t/msg/X", text: "float64 x"),
                unit: "m\u{1B}[2K\u{202E}"))
        var cdr = CDRWriter()
        cdr.write(1.5)
        try recorder.write(stream, logTime: 2_000, payload: cdr.bytes)
        try recorder.recordLoss(stream: stream, time: 2_500, count: 1, reason: "gap\u{1B}]0;owned\u{07}")
        try recorder.close(at: 3_000)
        let info = try tlm("info", directory)
        #expect(info.status == 0, "\(info.errors)")
        #expect(!info.output.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" || $0 == "\u{202E}" })
        #expect(info.output.contains("m\\e[2K\\u{202E}"), "\(info.output)")
        #expect(info.output.contains("gap\\e]0;owned\\u{7}"), "\(info.output)")
    }
}
