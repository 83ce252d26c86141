import Foundation
import TestSupport
import Testing

@testable import Recording
@testable import RecordingExport

/// `tlm export`'s plan: one file, standard output or one file per topic,
/// the refusals that say what to do instead, and the removal of what a
/// failed export started, on ``RecordingExportTests``' recording (three
/// topics of two schemas; moved from tlmTests' TidyExportCommandTests and
/// QueryExportTests, which ran `tlm export`).
@Suite struct ExportPlanTests {
    static var recording: String { RecordingExportTests.recording }
    static let a = "/diot/d_9F3A0C11/a"

    static func context(_ topics: [String]? = nil) throws -> (RecordingSource, ExportContext) {
        let source = try RecordingSource(path: recording)
        return (source, try source.exportContext(topics: topics ?? source.topics))
    }

    @Test func oneTopicStillWritesOneFileAndSeveralSchemasRefuseOne() throws {
        let (source, one) = try Self.context([Self.a])
        let file = makeTemporaryDirectory("onetopic") + "/a.csv"
        let plan = try ExportPlan(format: .csv, output: file, context: one)
        #expect(plan.target == .file(file))
        let outcome = try plan.run(source: source, topics: [Self.a], from: 0, to: .max)
        let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n")
        #expect(lines.first?.hasPrefix("log_time,publish_time,topic,") == true)
        #expect(lines.count - 1 == (try RecordingReader(directory: Self.recording).messages(topics: [Self.a])).count)
        #expect(outcome.messageCount == lines.count - 1 && outcome.files.isEmpty)
        // Several schemas into one named file, or CSV to standard output: refused, saying what to do.
        let (_, all) = try Self.context()
        for output in [makeTemporaryDirectory("several") + "/all.csv", "-"] {
            #expect {
                try ExportPlan(format: .csv, output: output, context: all)
            } throws: { error in
                (error as? RecordingError)?.message.contains("--long") == true
            }
            #expect(!FileManager.default.fileExists(atPath: output))
        }
        #expect(throws: RecordingError.self) { try ExportPlan(format: .jsonl, output: "all.jsonl", context: all) }
    }

    @Test func theTargetFollowsTheOutputAndTheSchemas() throws {
        let (_, all) = try Self.context()
        let (_, one) = try Self.context([Self.a])
        let directory = makeTemporaryDirectory("targets")
        func target(
            _ format: ExportPlan.Format, _ output: String, long: Bool = false, _ context: ExportContext
        ) throws
            -> ExportPlan.Target
        {
            try ExportPlan(format: format, output: output, long: long, context: context).target
        }
        // An existing directory, or a path ending in /: one file per topic, whatever the schemas.
        #expect(try target(.csv, directory, one) == .topicFiles(directory: directory))
        #expect(try target(.jsonl, directory + "/new/", one) == .topicFiles(directory: directory + "/new/"))
        // Several schemas and no file name: a directory.
        #expect(try target(.csv, directory + "/out", all) == .topicFiles(directory: directory + "/out"))
        #expect(try target(.csv, directory + "/out", one) == .file(directory + "/out"))
        // JSON lines to standard output may mix schemas; the long form and MCAP are one file.
        #expect(try target(.jsonl, "-", all) == .standardOutput)
        #expect(try target(.csv, directory + "/long.csv", long: true, all) == .file(directory + "/long.csv"))
        #expect(try target(.mcap, directory, all) == .file(directory))
        #expect(try target(.mcap, "-", all) == .standardOutput)
        #expect(throws: RecordingError.self) { try target(.parquet, directory, all) }
    }

    @Test func aParquetOutputIsCheckedBeforeAnythingIsRead() throws {
        let file = makeTemporaryDirectory("parquetfile") + "/file"
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        let cases: [(String, String?, String)] = [
            ("/tmp/tlm-never-made", "device,hour", "unknown partition key 'hour'"),
            ("-", nil, "directory"),
            (file, nil, "is a file"),
        ]
        for (output, partition, message) in cases {
            #expect {
                try ExportPlan.parquet(output: output, partition: partition)
            } throws: { error in
                (error as? RecordingError)?.message.contains(message) == true
            }
        }
        #expect(!FileManager.default.fileExists(atPath: "/tmp/tlm-never-made"))
        let plan = try ExportPlan.parquet(output: "lake", partition: "device,date")
        #expect(plan.target == .lake(directory: "lake", partitionKeys: [.device, .date]))
    }

    @Test func anExistingFileIsNeverOverwritten() throws {
        let (source, all) = try Self.context()
        let file = makeTemporaryDirectory("exists") + "/ride.mcap"
        try Data("keep".utf8).write(to: URL(fileURLWithPath: file))
        let plan = try ExportPlan(format: .mcap, output: file, context: all)
        #expect {
            try plan.run(source: source, topics: source.topics, from: 0, to: .max)
        } throws: { error in
            (error as? RecordingError)?.message == "\(file) already exists; choose a new output file"
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == Data("keep".utf8))
    }

    @Test func aFailedExportRemovesTheFilesItCreatedAndOnlyThose() throws {
        let (source, all) = try Self.context()
        let directory = makeTemporaryDirectory("partial") + "/out"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // The third topic's file is already there: the export fails after creating the first two.
        let taken = directory + "/other.x.c.csv"
        try Data("keep".utf8).write(to: URL(fileURLWithPath: taken))
        let plan = try ExportPlan(format: .csv, output: directory, context: all)
        #expect(plan.target == .topicFiles(directory: directory))
        #expect {
            try plan.run(source: source, topics: source.topics, from: 0, to: .max)
        } throws: { error in
            (error as? RecordingError)?.message.contains("cannot create \(taken)") == true
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["other.x.c.csv"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: taken)) == Data("keep".utf8))
    }

    @Test func anMCAPFileIsNewAndRemovedWhenItsWriterFails() throws {
        let (source, _) = try Self.context()
        let directory = makeTemporaryDirectory("mcapfile")
        let file = directory + "/filtered.mcap"
        let count = try ExportPlan.writeMCAP(to: file, library: "test filter") { exporter throws(RecordingError) in
            try source.export(topics: [Self.a], into: exporter)
        }
        #expect(count == 1_000)
        let written = try MCAPFileReader(path: file)
        #expect(written.topics == [Self.a])
        // An existing file is never overwritten.
        #expect {
            try ExportPlan.writeMCAP(to: file, library: "test") { _ throws(RecordingError) in 0 }
        } throws: { error in
            (error as? RecordingError)?.message == "\(file) already exists; choose a new output file"
        }
        // A writer that fails leaves no partial file.
        let partial = directory + "/partial.mcap"
        #expect(throws: RecordingError.self) {
            try ExportPlan.writeMCAP(to: partial, library: "test") { exporter throws(RecordingError) in
                _ = try source.export(topics: [Self.a], into: exporter)
                throw RecordingError(.io, "disk full")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: partial))
    }

    @Test func aPerTopicExportReportsItsFilesAndProgress() throws {
        let (source, all) = try Self.context()
        let directory = makeTemporaryDirectory("pertopic") + "/out"
        let plan = try ExportPlan(format: .jsonl, output: directory + "/", context: all)
        var reports: [(Int, UInt64)] = []
        let outcome = try plan.run(source: source, topics: source.topics, from: 0, to: .max) {
            reports.append(($0, $1))
        }
        #expect(outcome.messageCount == 3_000)
        #expect(
            Set(outcome.files)
                == Set(["diot.d_9F3A0C11.a", "diot.d_9F3A0C11.b", "other.x.c"].map { $0 + ".jsonl" }))
        #expect(reports.count == 3_000 && reports.last?.0 == 3_000)
        #expect(reports.allSatisfy { $0.1 >= UInt64($0.0) })
    }
}
