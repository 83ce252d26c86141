import DeviceRecording
import Devices
import Foundation
import GRDB
import RecordingQueries
import RecordingRepair
import TestSupport
import Testing

@testable import Recording

/// Finding 4: every value read from `index.sqlite` is checked; a bad one is a
/// `RecordingError` naming its table, row and column — never a trap — and
/// `verify` names it, and `recover` (or `verify --repair`) makes the
/// recording whole again.
@Suite struct IndexValidationTests {
    /// A bad value: the SQL that writes it, and the table and column an error must name.
    struct Mutation: Sendable, CustomTestStringConvertible {
        var table: String
        var column: String
        var value: String
        /// Which reader meets it first: `info` or `read`.
        var meetsIt: String
        var testDescription: String { "\(table).\(column) = \(value)" }
        var sql: String {
            // chunk_streams: the rows of the first chunk that holds acc_x (the
            // one the aggregate reads; raw notifications have chunks of their own).
            let row =
                table == "chunk_streams"
                ? """
                chunk_id = (SELECT MIN(cs.chunk_id) FROM chunk_streams cs JOIN streams st ON st.id = cs.stream_id
                            WHERE st.topic LIKE '%/acc_x')
                """
                : "id = (SELECT MIN(id) FROM \(table))"
            return "UPDATE \(table) SET \(column) = \(value) WHERE \(row)"
        }
    }

    static let mutations: [Mutation] = [
        .init(table: "chunks", column: "offset", value: "-1", meetsIt: "read"),
        .init(table: "chunks", column: "length", value: "-5", meetsIt: "read"),
        .init(table: "chunks", column: "offset", value: "'abc'", meetsIt: "read"),
        .init(table: "chunks", column: "length", value: "9000000000000000000", meetsIt: "read"),
        .init(table: "chunks", column: "offset", value: "1099511627776", meetsIt: "read"),
        .init(table: "chunks", column: "length", value: "12.5", meetsIt: "read"),
        .init(table: "sessions", column: "started_at", value: "'yesterday'", meetsIt: "info"),
        .init(table: "sessions", column: "started_at", value: "-7", meetsIt: "info"),
        .init(table: "sessions", column: "seed", value: "'seed'", meetsIt: "info"),
        .init(table: "streams", column: "channel_id", value: "70000", meetsIt: "read"),
        .init(table: "streams", column: "channel_id", value: "-2", meetsIt: "read"),
        .init(table: "streams", column: "message_count", value: "-3", meetsIt: "info"),
        .init(table: "streams", column: "message_count", value: "9223372036854775807", meetsIt: "info"),
        .init(table: "streams", column: "first_time", value: "x'00ff'", meetsIt: "info"),
        .init(table: "segments", column: "byte_size", value: "'big'", meetsIt: "info"),
        .init(table: "segments", column: "path", value: "'../../../etc/passwd'", meetsIt: "info"),
        .init(table: "segments", column: "chunk_count", value: "-1", meetsIt: "info"),
        .init(table: "losses", column: "count", value: "'many'", meetsIt: "info"),
        .init(table: "chunk_streams", column: "first_time", value: "-1", meetsIt: "aggregate"),
        .init(table: "chunk_streams", column: "value_count", value: "'n'", meetsIt: "aggregate"),
    ]

    /// A small closed recording with a loss record, and all its messages.
    static func recording() throws -> (String, [RecordedMessage]) {
        var configuration = RecorderConfiguration()
        configuration.chunkSize = 2048
        let directory = makeTemporaryDirectory() + "/rec"
        var simulator = DiotSimulator(seed: 5)
        let recorder = try Recorder(
            directory: directory, configuration: configuration,
            session: .init(name: "index", source: "simulate", seed: 5), startTime: 1)
        let diot = try DeviceStreamRecorder(
            recorder: recorder, decoder: DiotDecoder(), identifier: "IDX", name: "DIoT-IDX")
        for _ in 0..<200 { try diot.record(simulator.next().rawNotification(startTime: 2_000_000_000)) }
        try recorder.recordLoss(stream: nil, time: 2_500_000_000, count: 2, reason: "test loss")
        try recorder.close(at: 9_000_000_000)
        let reader = try RecordingReader(directory: directory)
        return (directory, try reader.messages(topics: reader.topics))
    }

    static func mutate(_ directory: String, _ sql: String) throws {
        let database = try DatabaseQueue(path: directory + "/index.sqlite")
        try database.write { try $0.execute(sql: sql) }
        try database.close()
    }

    @Test(arguments: mutations)
    func aBadIndexValueIsAnErrorNamingItsTableRowAndColumn(_ mutation: Mutation) throws {
        let (directory, original) = try Self.recording()
        try Self.mutate(directory, mutation.sql)
        let error: RecordingError?
        switch mutation.meetsIt {
        case "info":
            error = #expect(throws: RecordingError.self) { _ = try RecordingInfo.load(from: directory) }
        case "read":
            error = #expect(throws: RecordingError.self) {
                let reader = try RecordingReader(directory: directory)
                _ = try reader.messages(topics: reader.topics)
            }
        default:
            error = #expect(throws: RecordingError.self) {
                let reader = try RecordingReader(directory: directory)
                let topic = try #require(reader.topics.first { $0.hasSuffix("/acc_x") })
                _ = try reader.aggregate(topic: topic, from: 0, to: .max / 2, every: .seconds(1_000_000))
            }
        }
        #expect(error?.code == .index)
        #expect(error?.message.contains("table \(mutation.table)") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("column \(mutation.column)") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("row") == true, "\(error?.message ?? "")")

        let report = try RecordingVerifier.verify(directory: directory)
        #expect(
            report.findings.contains { $0.file == "index.sqlite" && $0.message.contains(mutation.column) },
            "\(report.findings)")
        _ = try RecordingRecovery.recover(directory: directory)
        let after = try RecordingVerifier.verify(directory: directory)
        #expect(after.isClean, "\(after.findings)")
        let reader = try RecordingReader(directory: directory)
        #expect(try reader.messages(topics: reader.topics) == original)
        #expect(try RecordingInfo.load(from: directory).losses.contains { $0.reason == "test loss" && $0.count == 2 })
    }
}
