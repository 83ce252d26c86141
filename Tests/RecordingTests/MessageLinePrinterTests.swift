import Foundation
import Quantities
import ROS2
import RecordingExport
import TestSupport
import Testing

@testable import Recording

/// `tlm cat`'s lines, and a recording followed while it is written, in process.
@Suite struct MessageLinePrinterTests {
    /// A closed recording: `/t/value` at 1, 2, 3 s and `/t/label` at 2 s.
    static func makeRecording(_ label: String = #function) throws -> String {
        let directory = makeTemporaryDirectory(label) + "/rec"
        let recorder = try Recorder(
            directory: directory, session: .init(name: "cat", source: "simulate", host: "test-host"), startTime: 0)
        let value = try recorder.addStream(
            StreamDescriptor(topic: "/t/value", kind: .typed, schema: RecordingExportTests.value))
        let label = try recorder.addStream(
            StreamDescriptor(topic: "/t/label", kind: .event, schema: RecordingExportTests.label))
        for second in 1...3 {
            try recorder.write(
                value, logTime: UInt64(second) * 1_000_000_000, payload: RecordingExportTests.valuePayload(0.5))
        }
        try recorder.write(label, logTime: 2_000_000_000, payload: RecordingExportTests.labelPayload(7, "a b", 1.5))
        try recorder.close(at: 4_000_000_000)
        return directory
    }

    @Test func messagesPrintAsJSONLinesOrTableLinesInLogTimeOrder() throws {
        let source = try RecordingSource(path: try Self.makeRecording())
        var jsonl = MessageLinePrinter(format: .jsonl)
        let lines = MemoryByteSink()
        // Equal log times keep the order they were written in.
        try jsonl.write(source, topics: ["/t/label", "/t/value"], from: 2_000_000_000, into: lines)
        #expect(
            String(decoding: lines.bytes, as: UTF8.self) == """
                {"fields":{"value":0.5},"log_time":2000000000,"publish_time":2000000000,"topic":"/t/value"}
                {"fields":{"count":7,"label":"a b","value":1.5},"log_time":2000000000,"publish_time":2000000000,"topic":"/t/label"}
                {"fields":{"value":0.5},"log_time":3000000000,"publish_time":3000000000,"topic":"/t/value"}

                """)
        var table = MessageLinePrinter(format: .table)
        let rows = MemoryByteSink()
        try table.write(source, topics: ["/t/label"], into: rows)
        #expect(
            String(decoding: rows.bytes, as: UTF8.self)
                == "1970-01-01T00:00:02.000Z  /t/label  count=7 label=a b value=1.5\n")
    }

    @Test func aTopicWithoutARos2msgSchemaOrNotAddedIsAnError() throws {
        var printer = MessageLinePrinter(format: .jsonl)
        let json = ExportTopic(
            topic: "/j", kind: .typed, unit: nil, schemaName: "j", schemaEncoding: "jsonschema", schemaData: [],
            messageEncoding: "json")
        #expect(
            throws: RecordingError(
                .unsupported,
                "/j has a jsonschema schema that cat cannot decode; "
                    + "leave it out with --exclude, or export it with --format mcap")
        ) { try printer.add([json]) }
        let message = RecordedMessage(topic: "/x", sequence: 0, logTime: 1, publishTime: 1, payload: [])
        #expect(throws: RecordingError(.corrupt, "no schema for /x")) { try printer.line(message) }
    }

    @Test func aFollowerWaitsForTheRecordingAndRefusesAFileOrAnEmptyRange() throws {
        let missing = makeTemporaryDirectory() + "/not-yet"
        let clock = ContinuousClock()
        let started = clock.now
        #expect(throws: RecordingError(.notFound, "\(missing) does not exist (expected a recording directory)")) {
            try RecordingFollower.waiting(for: missing, timeout: .milliseconds(300)) { _ in true }
        }
        #expect(clock.now - started >= .milliseconds(300))

        let file = makeTemporaryDirectory() + "/file.mcap"
        #expect(FileManager.default.createFile(atPath: file, contents: Data()))
        #expect(
            throws: RecordingError(.unsupported, "--follow reads a recording directory being written, not a file")
        ) { try RecordingFollower.waiting(for: file) { _ in true } }

        let recording = try Self.makeRecording()
        let empty = RecordingTimeRange(from: TimeSyntax(parsing: "+2s"), to: TimeSyntax(parsing: "+1s"))
        #expect(throws: RecordingError(.invalidConfiguration, RecordingTimeRange.emptyMessage)) {
            try RecordingFollower.waiting(for: recording, range: empty) { _ in true }
        }
    }

    @Test func aClosedRecordingIsFollowedInOnePollOfItsRange() throws {
        let recording = try Self.makeRecording()
        // Relative times count from the first message (1 s).
        let range = RecordingTimeRange(from: TimeSyntax(parsing: "+1s"))
        let follower = try RecordingFollower.waiting(for: recording, range: range) { $0 == "/t/value" }
        var polls: [[UInt64]] = []
        try follower.follow(every: .milliseconds(1)) { polls.append($0.map(\.logTime)) }
        #expect(polls == [[2_000_000_000, 3_000_000_000]])
        #expect(Array(follower.topics.keys) == ["/t/value"])
    }

    @Test func aRecordingBeingWrittenIsFollowedUntilItCloses() throws {
        var configuration = RecorderConfiguration()
        configuration.chunkAge = .milliseconds(1)
        let directory = makeTemporaryDirectory() + "/rec"
        let recorder = try Recorder(
            directory: directory, configuration: configuration,
            session: .init(name: "follow", source: "simulate", host: "test-host"), startTime: 0)
        let value = try recorder.addStream(
            StreamDescriptor(topic: "/t/value", kind: .typed, schema: RecordingExportTests.value))
        let follower = try RecordingFollower.waiting(for: directory) { _ in true }
        var seen: [UInt64] = []
        var polls = 0
        // Each poll, the recorder writes a chunk more; after the fifth it closes.
        try follower.follow(every: .milliseconds(1)) { messages throws(RecordingError) in
            seen += messages.map(\.logTime)
            polls += 1
            guard polls <= 5 else { return }
            let time = UInt64(polls) * 1_000
            try recorder.write(value, logTime: time, payload: RecordingExportTests.valuePayload(1))
            try recorder.closeChunkIfDue(now: time + 1_000_000_000)
            if polls == 5 { try recorder.close(at: time + 1) }
        }
        #expect(seen == [1_000, 2_000, 3_000, 4_000, 5_000])
        #expect(polls == 6)
    }
}
