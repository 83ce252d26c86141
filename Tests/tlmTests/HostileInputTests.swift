import Foundation
import Recording
import TestSupport
import Testing

/// Hostile command lines and files: each is refused up front with one clear
/// line and status 1, or handled, and never traps, hangs or writes where it
/// should not.
@Suite struct HostileInputTests {
    /// A small closed recording (one simulated DIoT device, 1 s), made once.
    static let recording: String = {
        let output = temporaryPath("hostileRecording")
        let result = try? tlm(
            "record", "--simulate", "--family", "diot", "--duration", "1s", "--chunk-age", "200ms",
            "--output", output)
        precondition(result?.status == 0, "cannot record the fixture: \(result?.errors ?? "")")
        return output
    }()

    /// A copy of ``recording`` whose first segment file is replaced by `replacement`.
    static func recording(withSegmentReplacedBy replacement: (String) throws -> Void) throws -> String {
        let copy = temporaryPath("hostileCopy")
        try FileManager.default.copyItem(atPath: recording, toPath: copy)
        let segment = copy + "/000001.mcap"
        try FileManager.default.removeItem(atPath: segment)
        try replacement(segment)
        return copy
    }

    static func makeFIFO(_ path: String) throws {
        guard mkfifo(path, 0o600) == 0 else { throw CommandError("mkfifo \(path) failed: errno \(errno)") }
    }

    static func expectOneLineError(
        _ result: CommandResult, containing expected: String,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) {
        #expect(result.status == 1, "status \(result.status), stderr: \(result.errors)", sourceLocation: sourceLocation)
        #expect(result.errors.contains(expected), "stderr: \(result.errors)", sourceLocation: sourceLocation)
        #expect(
            !result.errors.contains("Fatal error") && !result.errors.contains("Stack dump"),
            sourceLocation: sourceLocation)
    }

    // MARK: - 1. Output directories

    @Test(arguments: ["", "/", "//", "/tmp/..", "/./"])
    func anEmptyOrRootOutputIsRefusedBeforeAnythingIsWritten(output: String) throws {
        let record = try tlm("record", "--simulate", "--duration", "1s", "--output", output)
        Self.expectOneLineError(
            record,
            containing: output.isEmpty
                ? "output directory is empty"
                : "resolves to the root directory")
        let replay = try tlm("replay", Self.recording, "--output", output)
        Self.expectOneLineError(
            replay,
            containing: output.isEmpty
                ? "output directory is empty"
                : "resolves to the root directory")
        #expect(!FileManager.default.fileExists(atPath: "/index.sqlite"))
        #expect(!FileManager.default.fileExists(atPath: "/000001.mcap"))
    }

    @Test func anOutputThatIsAFileIsRefusedAndKept() throws {
        let file = temporaryPath()
        #expect(FileManager.default.createFile(atPath: file, contents: Data("keep".utf8)))
        for arguments in [
            ["record", "--simulate", "--duration", "1s", "--output", file],
            ["replay", Self.recording, "--output", file],
        ] {
            let result = try finish(try start(tlmPath, arguments))
            Self.expectOneLineError(result, containing: "\(file) is a file, not a directory")
        }
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "keep")
    }

    @Test func replayIntoANonEmptyDirectoryIsRefusedAndTouchesNothing() throws {
        let directory = temporaryPath()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: directory + "/keep.txt", contents: Data("keep".utf8)))
        let result = try tlm("replay", Self.recording, "--output", directory)
        Self.expectOneLineError(result, containing: "not empty")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["keep.txt"])
    }

    // MARK: - 2. Replay rates

    @Test(arguments: ["1e-16", "1e-6", "0.0009", "2e6", "1e300"])
    func aReplayRateOutsideItsRangeIsRefused(rate: String) throws {
        let output = temporaryPath()
        let result = try tlm("replay", Self.recording, "--rate", rate, "--output", output)
        Self.expectOneLineError(result, containing: "--rate must be between 0.001 and 1000000")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test func sigtermEndsASlowReplayPromptlyAndClosesTheRecording() throws {
        let output = temporaryPath()
        // At the slowest rate the second notification (20 ms later) is 20 s away.
        let running = try start(tlmPath, ["replay", Self.recording, "--rate", "0.001", "--output", output])
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline, !FileManager.default.fileExists(atPath: output + "/index.sqlite") {
            usleep(20_000)
        }
        usleep(500_000)
        let signalled = ContinuousClock.now
        kill(running.0.processIdentifier, SIGTERM)
        let result = try finish(running, timeout: .seconds(10))
        #expect(ContinuousClock.now - signalled < .seconds(5))
        #expect(result.status == 0, "stderr: \(result.errors)")
        #expect(result.output.contains("(stopped by signal)"), "stdout: \(result.output)")
        let info = try RecordingInfo.load(from: output)
        #expect(info.session.endedAt != nil)
        #expect(info.segments.allSatisfy { $0.state == "closed" })
    }

    // MARK: - 3. Expressions

    static func pipeline(value: String) -> String {
        """
        name: hostile
        devices:
          - family: diot
            source: {simulated: {seed: 1}}
        derived:
          - name: e
            combineLatest: {x: /diot/*/acc_x, y: /diot/*/acc_y}
            value: \(value)

        """
    }

    @Test func aDeeplyNestedExpressionIsALoadErrorNotACrash() throws {
        let file = temporaryPath() + ".yaml"
        let nested = String(repeating: "(", count: 30_000) + "x" + String(repeating: ")", count: 30_000)
        try Self.pipeline(value: nested).write(toFile: file, atomically: true, encoding: .utf8)
        let output = temporaryPath()
        let result = try tlm("record", "--pipeline", file, "--duration", "1s", "--output", output)
        Self.expectOneLineError(result, containing: "\(file):8:")
        #expect(result.errors.contains("nested more than 64 deep"), "stderr: \(result.errors)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test func aHugeSumIsALoadErrorAndLeavesNoRecording() throws {
        let file = temporaryPath() + ".yaml"
        let sum = Array(repeating: "x", count: 100_000).joined(separator: "+")
        try Self.pipeline(value: sum).write(toFile: file, atomically: true, encoding: .utf8)
        let output = temporaryPath()
        let result = try tlm("record", "--pipeline", file, "--duration", "1s", "--output", output)
        Self.expectOneLineError(result, containing: "\(file):8:")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    // MARK: - 4. Files that are not regular files

    @Test func aFIFOOrADirectoryAsPipelineFileIsRefused() throws {
        let fifo = temporaryPath() + ".yaml"
        try Self.makeFIFO(fifo)
        defer { try? FileManager.default.removeItem(atPath: fifo) }
        let directory = temporaryPath()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for (path, kind) in [(fifo, "a FIFO"), ("/dev/zero", "a character device"), (directory, "a directory")] {
            let record = try finish(
                try start(tlmPath, ["record", "--pipeline", path, "--output", temporaryPath()]),
                timeout: .seconds(10))
            Self.expectOneLineError(
                record, containing: "\(path): cannot read the pipeline file: it is \(kind), not a regular file")
            let replay = try finish(
                try start(
                    tlmPath,
                    [
                        "replay", Self.recording, "--pipeline", path,
                        "--output", temporaryPath(),
                    ]), timeout: .seconds(10))
            Self.expectOneLineError(replay, containing: "it is \(kind), not a regular file")
        }
    }

    @Test func aPipelineFileOverOneMiBIsRefused() throws {
        let file = temporaryPath() + ".yaml"
        let padding = String(repeating: "# padding\n", count: 110_000)
        try (Self.pipeline(value: "x + y") + padding).write(toFile: file, atomically: true, encoding: .utf8)
        let result = try tlm("record", "--pipeline", file, "--duration", "1s", "--output", temporaryPath())
        Self.expectOneLineError(result, containing: "\(file): cannot read the pipeline file: it is larger than 1 MiB")
    }

    @Test func aFIFOInPlaceOfASegmentIsRefusedByQueryAndReplay() throws {
        let copy = try Self.recording(withSegmentReplacedBy: Self.makeFIFO)
        let query = try finish(try start(tlmPath, ["query", copy, "--topic", "/diot/*/acc_x"]), timeout: .seconds(10))
        Self.expectOneLineError(
            query, containing: "000001.mcap cannot be read: it is a FIFO, not a regular file")
        let replay = try finish(
            try start(tlmPath, ["replay", copy, "--output", temporaryPath()]), timeout: .seconds(10))
        Self.expectOneLineError(
            replay, containing: "000001.mcap cannot be read: it is a FIFO, not a regular file")
    }

    @Test func aFIFOInPlaceOfASegmentIsReportedByVerifyAndRefusedByRecover() throws {
        let copy = try Self.recording(withSegmentReplacedBy: Self.makeFIFO)
        let verify = try finish(try start(tlmPath, ["verify", copy]), timeout: .seconds(10))
        #expect(verify.status == 2, "status \(verify.status), stderr: \(verify.errors)")
        #expect(verify.output.contains("cannot be read") && verify.output.contains("FIFO"), "\(verify.output)")
        let recover = try finish(try start(tlmPath, ["recover", copy]), timeout: .seconds(10))
        Self.expectOneLineError(recover, containing: "it is a FIFO, not a regular file")
    }

    @Test func aDirectoryInPlaceOfASegmentIsRefusedByQuery() throws {
        let copy = try Self.recording(withSegmentReplacedBy: {
            try FileManager.default.createDirectory(atPath: $0, withIntermediateDirectories: false)
        })
        let query = try finish(try start(tlmPath, ["query", copy, "--topic", "/diot/*/acc_x"]), timeout: .seconds(10))
        Self.expectOneLineError(
            query, containing: "000001.mcap cannot be read: it is a directory, not a regular file")
    }

    // MARK: - 5. Exit status of usage errors

    @Test(arguments: [
        ["record", "--simulate", "--zstd-level", "99"],
        ["record", "--simulate", "--duration", "abc"],
        ["record"],
        ["info"],
        ["frobnicate"],
        ["replay", "x", "--output", "y", "--rate", "-1"],
        ["query", "--no-such-option"],
    ])
    func aUsageErrorExitsWithStatusOne(arguments: [String]) throws {
        let result = try finish(try start(tlmPath, arguments))
        #expect(result.status == 1, "status \(result.status), stderr: \(result.errors)")
        #expect(result.errors.hasPrefix("Error: "), "stderr: \(result.errors)")
        #expect(result.errors.contains("Usage: tlm"), "stderr: \(result.errors)")
    }

    @Test func helpAndVersionStillExitZero() throws {
        #expect(try tlm("--help").status == 0)
        #expect(try tlm("record", "--help").status == 0)
        #expect(try tlm("--version").status == 0)
    }

    // MARK: - 6. Sizes and durations alike on the command line and in pipeline files

    @Test func theCommandLineTakesSizesWithUnitsAsPipelineFilesDo() throws {
        let output = temporaryPath()
        let result = try tlm(
            "record", "--simulate", "--family", "diot", "--duration", "500ms",
            "--segment-size", "64KiB", "--chunk-size", "4KiB", "--chunk-age", "250000us",
            "--output", output)
        #expect(result.status == 0, "stderr: \(result.errors)")
        #expect(try RecordingInfo.load(from: output).messageCount > 0)
    }

    @Test(arguments: [
        ("--chunk-size", "chunkSize", "2GiB", "chunk size 2147483648 bytes is above the 1 GiB maximum"),
        ("--chunk-size", "chunkSize", "512", "chunk size 512 bytes is below the 1 KiB minimum"),
        ("--segment-size", "segmentSize", "1KiB", "segment size 1024 bytes is below the 64 KiB minimum"),
        ("--segment-size", "segmentSize", "2TiB", "segment size 2199023255552 bytes is above the 1 TiB maximum"),
        ("--segment-duration", "segmentDuration", "10000h", "10000h is longer than the maximum of 366 days"),
        ("--chunk-age", "chunkAge", "-1s", "-1s must be positive"),
        ("--chunk-age", "chunkAge", "0s", "0s must be positive"),
        ("--segment-size", "segmentSize", "64 parsecs", "'64 parsecs' is not a size"),
    ])
    func aSizeOrDurationIsBoundedAlikeOnTheCommandLineAndInAPipeline(
        option: String, key: String, value: String, message: String
    ) throws {
        // `--option=value`, so that `-1s` is a value and not an option.
        let command = try tlm(
            "record", "--simulate", "\(option)=\(value)", "--duration", "1s", "--output", temporaryPath())
        Self.expectOneLineError(command, containing: message)
        let file = temporaryPath() + ".yaml"
        try """
        name: sizes
        devices:
          - family: diot
            source: {simulated: {seed: 1}}
        recording:
          \(key): \(value)

        """.write(toFile: file, atomically: true, encoding: .utf8)
        let pipeline = try tlm("record", "--pipeline", file, "--duration", "1s", "--output", temporaryPath())
        Self.expectOneLineError(pipeline, containing: "\(file):6:")
        #expect(pipeline.errors.contains(message), "stderr: \(pipeline.errors)")
    }

    // MARK: - 7. A recording without messages

    @Test func infoOnARecordingWithoutChunksShowsTheStartAndNoMessages() throws {
        let directory = temporaryPath()
        let start: UInt64 = 1_790_000_000_000_000_000  // 2026-09-21T...
        do {
            // Opened and never closed (a crash before the first chunk), then recovered.
            _ = try Recorder(directory: directory, session: .init(name: "empty", source: "simulate"), startTime: start)
        }
        let recover = try tlm("recover", directory)
        #expect(recover.status == 0, "stderr: \(recover.errors)")
        let info = try tlm("info", directory)
        #expect(info.status == 0, "stderr: \(info.errors)")
        // No epoch instant: "1970" alone also matches a process id in the temporary path.
        #expect(!info.output.contains("1970-01-01T"), "\(info.output)")
        let started = InfoReportTimestamps.iso(start)
        #expect(info.output.contains("Started     \(started)\n"), "\(info.output)")
        #expect(info.output.contains("Ended       no messages\n"), "\(info.output)")
    }
}

/// Timestamps as `tlm info` writes them.
enum InfoReportTimestamps {
    static func iso(_ nanoseconds: UInt64) -> String {
        Date.ISO8601FormatStyle(includingFractionalSeconds: true)
            .format(Date(timeIntervalSince1970: Double(nanoseconds) / 1e9))
    }
}
