import Foundation
import Recording
import TestSupport
import Testing

/// `tlm record --pipeline` and `tlm replay --pipeline`, run as the built binary.
@Suite struct PipelineCommandTests {
    static let imu = repositoryRoot + "/Pipelines/diot-imu.yaml"

    /// The derived messages of a recording, by topic: log time relative to the
    /// recording's first message, and the payload.
    static func derived(_ directory: String, relative: Bool) throws -> [String: [(UInt64, [UInt8])]] {
        let reader = try RecordingReader(directory: directory)
        let all = try reader.messages(topics: reader.topics)
        let first = relative ? (all.map(\.logTime).min() ?? 0) : 0
        var result: [String: [(UInt64, [UInt8])]] = [:]
        for message in all where message.topic.hasPrefix("/derived/") {
            result[message.topic, default: []].append((message.logTime - first, message.payload))
        }
        return result
    }

    static func expectSame(
        _ a: [String: [(UInt64, [UInt8])]], _ b: [String: [(UInt64, [UInt8])]],
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) {
        #expect(a.keys.sorted() == b.keys.sorted(), sourceLocation: sourceLocation)
        for (topic, messages) in a {
            #expect(messages.map(\.0) == b[topic]?.map(\.0), "log times of \(topic)", sourceLocation: sourceLocation)
            #expect(messages.map(\.1) == b[topic]?.map(\.1), "values of \(topic)", sourceLocation: sourceLocation)
        }
    }

    @Test func aMalformedPipelineIsOneLineWithFileAndLine() throws {
        let file = temporaryPath() + ".yaml"
        try """
        name: bad
        devices:
          - family: diot
            source: {simulated: {seed: 1}}
        derived:
          - name: m
            from: /diot/*/acc_x
            operators:
              - debouce: 500ms
        """.write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let output = temporaryPath()
        let result = try tlm("record", "--pipeline", file, "--duration", "1s", "--output", output)
        #expect(result.status != 0)
        let lines = result.errors.split(separator: "\n")
        #expect(lines.count == 1, "stderr: \(result.errors)")
        #expect(
            result.errors.contains("\(file):9:9: unknown operator 'debouce' (expected one of: map, filter,"),
            "stderr: \(result.errors)")
        #expect(!FileManager.default.fileExists(atPath: output))
        let replay = try tlm("replay", output, "--pipeline", file, "--output", temporaryPath())
        #expect(replay.status != 0)
        #expect(replay.errors.split(separator: "\n").count == 1 && replay.errors.contains("\(file):9:9:"))
    }

    @Test func aMissingPipelineFileAndALiveDeviceWithoutBlueZAreOneLineErrors() throws {
        let missing = try tlm("record", "--pipeline", "/nonexistent/p.yaml", "--output", temporaryPath())
        #expect(missing.status != 0)
        #expect(missing.errors.split(separator: "\n").count == 1)
        #expect(missing.errors.contains("/nonexistent/p.yaml: cannot read the pipeline file"))

        let file = temporaryPath() + ".yaml"
        try "name: live\ndevices:\n  - family: comodule\n    source: {live: {name: SCOOT-01}}\n"
            .write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let live = try tlm("record", "--pipeline", file, "--duration", "1s", "--output", temporaryPath())
        #expect(live.status != 0)
        // The banner (status, on stderr) and one line of error.
        let lines = live.errors.split(separator: "\n")
        #expect(lines.count <= 2 && lines.filter { $0.hasPrefix("Error: ") }.count == 1, "\(live.errors)")
        #expect(lines.count == 1 || lines[0].hasPrefix("Recording pipeline live"), "\(live.errors)")
        // No BlueZ here: no system bus at all, or a bus without org.bluez.
        #expect(
            live.errors.contains("cannot reach the D-Bus system bus") || live.errors.contains("BlueZ is not running"),
            "stderr: \(live.errors)")
        #expect(!live.errors.contains("Fatal error"))

        let both = try tlm("record", "--simulate", "--pipeline", file)
        #expect(both.status != 0 && both.errors.contains("exclude each other"))
    }

    @Test func recordTwiceGivesTheSameDerivedValuesAndReplayReproducesThem() throws {
        let first = temporaryPath()
        let second = temporaryPath()
        let again = temporaryPath()
        defer { for path in [first, second, again] { try? FileManager.default.removeItem(atPath: path) } }
        for output in [first, second] {
            let result = try tlm("record", "--pipeline", Self.imu, "--duration", "2s", "--output", output)
            #expect(result.status == 0, "stderr: \(result.errors)")
            #expect(result.errors.contains("Recording pipeline diot-imu"))
        }
        let a = try Self.derived(first, relative: true)
        let b = try Self.derived(second, relative: true)
        #expect(a["/derived/acc_magnitude"]?.count ?? 0 > 1000)
        Self.expectSame(a, b)

        // The typed streams the pipeline does not record are absent; raw streams are there.
        let info = try RecordingInfo.load(from: first)
        let topics = info.streams.map(\.topic)
        #expect(topics.contains { $0.hasSuffix("/acc_x") } && topics.contains { $0.contains("/raw/") })
        #expect(!topics.contains { $0.hasSuffix("/heart_rate") || $0.hasSuffix("/battery") })

        let replay = try tlm("replay", first, "--pipeline", Self.imu, "--output", again)
        #expect(replay.status == 0, "stderr: \(replay.errors)")
        #expect(replay.output.contains("derived values"))
        Self.expectSame(try Self.derived(first, relative: false), try Self.derived(again, relative: false))
    }

    @Test func commandLineSettingsOverrideThePipelines() throws {
        let output = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: output) }
        let result = try tlm(
            "record", "--pipeline", repositoryRoot + "/Pipelines/default.yaml", "--seed", "7",
            "--duration", "1s", "--zstd-level", "30", "--output", output)
        #expect(result.status != 0)
        #expect(result.errors.contains("zstd level 30"), "stderr: \(result.errors)")
        let ok = try tlm(
            "record", "--pipeline", repositoryRoot + "/Pipelines/default.yaml", "--seed", "7",
            "--duration", "1s", "--output", output)
        #expect(ok.status == 0, "stderr: \(ok.errors)")
        #expect(try RecordingInfo.load(from: output).session.seed == 7)
    }

    @Test func helpShowsThePipelineOptions() throws {
        let record = try tlm("record", "--help")
        #expect(
            record.output.contains("--pipeline")
                && record.output.contains("tlm record --pipeline Pipelines/diot-imu.yaml"))
        let replay = try tlm("replay", "--help")
        #expect(replay.output.contains("--pipeline") && replay.output.contains("tlm replay imu --pipeline"))
    }
}
