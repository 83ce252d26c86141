import Foundation
import Recording
import TestSupport
import Testing

/// A lake of several simulated recordings, made with `tlm export --format
/// parquet --partition date,device` and checked with `tlm lake`, read by
/// DuckDB (hive_partitioning) and by Spark (pyspark, local mode, default
/// settings): every table, rows per recording equal to the recordings'
/// messages per schema, the same leading values for sampled rows; and a
/// per-topic export read by Spark too (no NANOS timestamp it refuses).
@Suite(.serialized) struct LakeEngineTests {
    /// Three simulated recordings (the faults scenario: loss records) added to one lake, and a
    /// per-topic export of the first.
    struct Fleet {
        var lake: String
        var recordings: [String]
        var flatFiles: [String]
        var addOutputs: [CommandResult]
        var readdOutput: CommandResult
    }

    static let fleet: Result<Fleet, any Error> = Result {
        let base = temporaryPath("lakeengines")
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        let recordings = (1...3).map { base + "/ride-\($0)" }
        // Recorded at once (each takes its 2 s of simulated time).
        let started = try recordings.enumerated().map { index, path in
            try start(
                tlmPath,
                [
                    "record", "--simulate", "--scenario", "faults", "--duration", "2s", "--seed", "\(index + 11)",
                    "--output", path, "-q",
                ])
        }
        for run in started {
            let result = try finish(run)
            guard result.status == 0 || result.status == 3 else { throw CommandError("record: \(result.errors)") }
        }
        let lake = base + "/fleet"
        var outputs: [CommandResult] = []
        for path in recordings {
            outputs.append(
                try tlm("export", path, "--format", "parquet", "--partition", "date,device", "--output", lake))
        }
        let again = try tlm("export", recordings[0], "--format", "parquet", "--output", lake)
        let flat = base + "/flat"
        let exported = try tlm("export", recordings[0], "--format", "parquet", "--topic", "/diot/**", "--output", flat)
        guard exported.status == 0 else { throw CommandError("export: \(exported.errors)") }
        let files = try FileManager.default.contentsOfDirectory(atPath: flat).filter { $0.hasSuffix(".parquet") }
            .sorted().prefix(3).map { flat + "/" + $0 }
        return Fleet(lake: lake, recordings: recordings, flatFiles: files, addOutputs: outputs, readdOutput: again)
    }

    /// Whether Java and pyspark are there (`make setup-test` installs both): only without them is Spark's test skipped.
    static let sparkAvailable: Bool = {
        let java = ProcessInfo.processInfo.environment["JAVA_HOME"].map { $0 + "/bin/java" } ?? "/usr/bin/java"
        guard FileManager.default.isExecutableFile(atPath: java) else { return false }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: repositoryRoot + "/.venv/bin/python")
        process.arguments = ["-c", "import pyspark"]
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()

    /// Rows per table per recording, as the recordings' streams count their messages per schema.
    static func expectedRows(_ fleet: Fleet, manifest: [String: Any]) throws -> [String: [String: Int]] {
        let tables = try #require(manifest["tables"] as? [[String: Any]])
        var tableOfSchema: [String: String] = [:]
        for table in tables { tableOfSchema[table["schema"] as! String] = (table["name"] as! String) }
        var expected: [String: [String: Int]] = [:]
        for path in fleet.recordings {
            let id = URL(fileURLWithPath: path).lastPathComponent
            for stream in try RecordingInfo.load(from: path).streams where stream.messageCount > 0 {
                let table = try #require(tableOfSchema[stream.schema], "\(stream.schema)")
                expected[table, default: [:]][id, default: 0] += stream.messageCount
            }
        }
        return expected
    }

    static func manifest(_ fleet: Fleet) throws -> [String: Any] {
        let info = try tlm("lake", "info", fleet.lake, "--format", "json")
        #expect(info.status == 0, "\(info.errors)")
        return try #require(try JSONSerialization.jsonObject(with: Data(info.output.utf8)) as? [String: Any])
    }

    /// What an engine read: rows per table per recording, and the sampled rows per table.
    static func read(_ fleet: Fleet, engine: String) throws -> [String: Any] {
        let data = try runPython(script: "read_lake.py", arguments: [fleet.lake, engine] + fleet.flatFiles)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    static func check(_ result: [String: Any], engine: String, fleet: Fleet) throws -> [String: [[String]]] {
        let expected = try expectedRows(fleet, manifest: try manifest(fleet))
        let tables = try #require(result["tables"] as? [String: [String: Any]], "\(result)")
        #expect(Set(tables.keys) == Set(expected.keys), "\(engine)")
        var samples: [String: [[String]]] = [:]
        for (table, rows) in expected {
            let read = try #require(tables[table], "\(engine) \(table)")
            #expect(read["rows"] as? [String: Int] == rows, "\(engine) \(table)")
            let columns = try #require(read["columns"] as? [String])
            #expect(
                Array(columns.prefix(9)) == [
                    "topic", "device_id", "device_family", "recording", "sample_time", "receive_time",
                    "sample_time_ns", "receive_time_ns", "sequence",
                ], "\(engine) \(table)")
            #expect(columns.contains("date") && columns.contains("device"), "\(engine) \(table): partitions")
            let sample = try #require(read["sample"] as? [[Any]])
            #expect(!sample.isEmpty)
            for row in sample {
                // The timestamp is the exact time to the microsecond.
                let sampleMicros = (row[4] as? Int64 ?? Int64("\(row[4])") ?? -1)
                let sampleNanos = (row[6] as? Int64 ?? Int64("\(row[6])") ?? -2)
                #expect(sampleMicros == sampleNanos / 1000 * 1000, "\(engine) \(table) \(row)")
            }
            samples[table] = sample.map { $0.map { "\($0)" } }
        }
        let files = try #require(result["files"] as? [String: Int])
        #expect(files.count == fleet.flatFiles.count && files.values.allSatisfy { $0 > 0 }, "\(engine) \(files)")
        return samples
    }

    @Test func addingRecordingsSaysWhatItDidAndTheLakeVerifies() throws {
        let fleet = try Self.fleet.get()
        for (path, result) in zip(fleet.recordings, fleet.addOutputs) {
            #expect(result.status == 0, "\(result.errors)")
            let id = URL(fileURLWithPath: path).lastPathComponent
            #expect(result.output.contains("Added recording \(id) to the lake"), "\(result.output)")
        }
        #expect(fleet.readdOutput.status == 0, "\(fleet.readdOutput.errors)")
        #expect(fleet.readdOutput.output.contains("is already in the lake"), "\(fleet.readdOutput.output)")
        #expect(fleet.readdOutput.output.contains("nothing added"))
        let verify = try tlm("lake", "verify", fleet.lake)
        #expect(verify.status == 0 && verify.output.contains("matches its manifest"), "\(verify.output)")
        let info = try tlm("lake", "info", fleet.lake)
        #expect(info.status == 0 && info.output.contains("Recordings  3,"), "\(info.output)")
        #expect(info.output.contains("tlm_msg_LossRecord"))
        // A stray file makes verify fail (status 2), naming it.
        let table = try #require(
            try FileManager.default.contentsOfDirectory(atPath: fleet.lake).first { $0 != "_tlm" })
        let stray = fleet.lake + "/" + table + "/stray.parquet"
        _ = FileManager.default.createFile(atPath: stray, contents: Data("PAR1".utf8))
        defer { try? FileManager.default.removeItem(atPath: stray) }
        let broken = try tlm("lake", "verify", fleet.lake)
        #expect(broken.status == 2 && broken.output.contains("\(table)/stray.parquet is not in the manifest"))
    }

    @Test func aLakeRefusesPartsOfRecordingsAndOtherKeys() throws {
        let fleet = try Self.fleet.get()
        let cases: [([String], String)] = [
            (["--partition", "date,device", "--topic", "/diot/**"], "a lake holds whole recordings"),
            (["--partition", "date,device", "--from", "+1s"], "a lake holds whole recordings"),
            (["--partition", "device"], "is partitioned by date,device: give --partition date,device"),
        ]
        for (extra, message) in cases {
            let result = try tlm(
                ["export", fleet.recordings[1], "--format", "parquet", "--output", fleet.lake] + extra,
                environment: ProcessInfo.processInfo.environment)
            #expect(result.status == 1 && result.errors.contains(message), "\(extra): \(result.errors)")
        }
        let missing = try tlm("lake", "info", fleet.recordings[0])
        #expect(missing.status == 1 && missing.errors.contains("is not a tlm lake"), "\(missing.errors)")
    }

    @Test func compactionKeepsEveryRowAndValueForDuckDBAndRecordingsStayAdded() throws {
        let fleet = try Self.fleet.get()
        var compacted = fleet
        compacted.lake = temporaryPath("lakecompact") + "/fleet"
        try FileManager.default.createDirectory(
            atPath: (compacted.lake as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: fleet.lake, toPath: compacted.lake)
        func parquetFiles() -> [String] {
            let enumerator = FileManager.default.enumerator(atPath: compacted.lake)
            var files: [String] = []
            while let path = enumerator?.nextObject() as? String {
                if path.hasSuffix(".parquet") && !path.hasPrefix("_tlm") { files.append(path) }
            }
            return files.sorted()
        }
        let before = try Self.read(compacted, engine: "duckdb")
        let filesBefore = parquetFiles()
        let result = try tlm("lake", "compact", compacted.lake)
        #expect(result.status == 0 && result.output.contains("merged"), "\(result.output) \(result.errors)")
        let filesAfter = parquetFiles()
        // Three recordings per partition became one file per partition.
        #expect(filesAfter.count < filesBefore.count, "\(filesBefore.count) → \(filesAfter.count)")
        #expect(Set(filesAfter.map { ($0 as NSString).deletingLastPathComponent }).count == filesAfter.count)
        let verify = try tlm("lake", "verify", compacted.lake)
        #expect(verify.status == 0 && verify.output.contains("matches its manifest"), "\(verify.output)")
        let after = try Self.read(compacted, engine: "duckdb")
        _ = try Self.check(after, engine: "duckdb", fleet: compacted)
        let tablesBefore = try #require(before["tables"] as? [String: [String: Any]])
        let tablesAfter = try #require(after["tables"] as? [String: [String: Any]])
        #expect(Set(tablesBefore.keys) == Set(tablesAfter.keys))
        for (table, read) in tablesBefore {
            let other = try #require(tablesAfter[table])
            #expect(read["rows"] as? [String: Int] == other["rows"] as? [String: Int], "\(table)")
            #expect(read["digest"] as? String == other["digest"] as? String, "\(table)")
            #expect("\(read["sample"] ?? "")" == "\(other["sample"] ?? "")", "\(table)")
        }
        // Again: nothing to merge; adding a compacted recording again adds nothing.
        let again = try tlm("lake", "compact", compacted.lake)
        #expect(again.status == 0 && again.output.contains("nothing to merge"), "\(again.output)")
        #expect(parquetFiles() == filesAfter)
        let readd = try tlm(
            "export", fleet.recordings[1], "--format", "parquet", "--partition", "date,device", "--output",
            compacted.lake)
        #expect(readd.status == 0 && readd.output.contains("is already in the lake"), "\(readd.output)")
        #expect(parquetFiles() == filesAfter)
    }

    @Test func duckDBReadsEveryTableWithTheRecordingsRows() throws {
        let fleet = try Self.fleet.get()
        _ = try Self.check(try Self.read(fleet, engine: "duckdb"), engine: "duckdb", fleet: fleet)
    }

    @Test(.enabled(if: sparkAvailable, "needs Java and pyspark in .venv: make setup-test installs both"))
    func sparkReadsEveryTableWithDefaultSettingsAsDuckDBDoes() throws {
        let fleet = try Self.fleet.get()
        let duckdb = try Self.check(try Self.read(fleet, engine: "duckdb"), engine: "duckdb", fleet: fleet)
        let spark = try Self.read(fleet, engine: "spark")
        #expect(spark["missing"] == nil, "\(spark)")
        #expect(try Self.check(spark, engine: "spark", fleet: fleet) == duckdb)
        // Spark SQL's per-device, per-second mean equals `tlm query --every 1s --agg mean` on each recording.
        var sparkMeans: [String: Double] = [:]
        for row in try #require(spark["means"] as? [[Any]]) {
            guard let mean = row[3] as? Double else { continue }
            sparkMeans["\(row[0]) \(row[1]) \(row[2])"] = mean
        }
        var compared = 0
        for path in fleet.recordings {
            let id = URL(fileURLWithPath: path).lastPathComponent
            let query = try tlm(
                "query", path, "--topic", "/diot/**", "--every", "1s", "--agg", "mean", "--format", "jsonl")
            #expect(query.status == 0, "\(query.errors)")
            for line in query.output.split(separator: "\n") {
                let row = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                guard let mean = row["mean"] as? Double, let topic = row["topic"] as? String,
                    let start = row["bucket_start"] as? Int64
                else { continue }
                let key = "\(id) \(topic) \(start / 1_000_000_000)"
                let other = try #require(sparkMeans[key], "Spark has no mean for \(key)")
                // The same values summed in another order: equal to the last bits.
                #expect(abs(other - mean) <= 1e-12 * max(1, abs(mean)), "\(key): Spark \(other), tlm \(mean)")
                compared += 1
            }
        }
        #expect(compared > 30)
    }
}
