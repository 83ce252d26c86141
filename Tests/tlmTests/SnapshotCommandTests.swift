import Foundation
import Recording
import TestSupport
import Testing

/// Polls `condition` until it holds or `timeout` has passed.
private func waitUntil(timeout: Duration = .seconds(30), _ condition: () -> Bool) {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline, !condition() { usleep(10_000) }
}

/// `tlm record --snapshot`: the flight recorder from the command line.
@Suite struct SnapshotCommandTests {
    /// Starts a flight recorder into `folder` and waits until SIGUSR1 is trapped (its spool's index exists).
    private func startFlightRecorder(
        _ folder: String, window: [String] = ["--keep", "5s", "--before", "2s", "--after", "500ms"]
    ) throws -> (Process, URL, URL) {
        let running = try start(
            tlmPath, ["record", "--simulate", "--snapshot", "--chunk-age", "200ms", "--output", folder] + window)
        waitUntil(timeout: .seconds(30)) { FileManager.default.fileExists(atPath: folder + "/.ring/index.sqlite") }
        // Let the ring take a few seconds of data.
        usleep(3_000_000)
        return running
    }

    private func snapshots(in folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
            .filter { $0.hasPrefix("snapshot-") }.sorted().map { folder + "/" + $0 }
    }

    @Test func sigusr1WritesASnapshotOfItsWindowThatEveryToolReads() throws {
        let folder = temporaryPath()
        let running = try startFlightRecorder(folder)
        kill(running.0.processIdentifier, SIGUSR1)
        // The window closes 500 ms after the trigger; the next tick writes it.
        waitUntil(timeout: .seconds(20)) { !snapshots(in: folder).isEmpty }
        usleep(1_500_000)
        kill(running.0.processIdentifier, SIGINT)
        let result = try finish(running, timeout: .seconds(20))
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("Flight recorder: 1 snapshot(s)"))
        #expect(result.errors.contains("snapshot: \(folder)/snapshot-0001-"))
        let directory = try #require(snapshots(in: folder).first)
        #expect(try tlm("verify", directory).status == 0)
        let info = try RecordingInfo.load(from: directory)
        let start = info.session.startedAt
        let end = try #require(info.session.endedAt)
        #expect(end - start == 2_500_000_000)
        // Every message of a stream that is not latched lies in the window; latched ones may precede it.
        for stream in info.streams where stream.messageCount > 0 && !stream.latched {
            #expect((stream.firstTime ?? 0) >= start && (stream.lastTime ?? .max) <= end, "\(stream.topic)")
        }
        #expect(info.streams.contains { $0.topic == "/tlm/marker" && $0.messageCount == 1 })
        // The spool is gone; the snapshot reads in Python's mcap.
        #expect(!FileManager.default.fileExists(atPath: folder + "/.ring"))
        _ = try readWithPython(info.segments.map { directory + "/" + $0.path })
    }

    @Test func aRecorderKilledHardIsFollowedByOneThatNumbersOn() throws {
        let folder = temporaryPath()
        let first = try startFlightRecorder(folder)
        kill(first.0.processIdentifier, SIGUSR1)
        waitUntil(timeout: .seconds(20)) { !snapshots(in: folder).isEmpty }
        usleep(1_500_000)
        kill(first.0.processIdentifier, SIGKILL)
        _ = try? finish(first, timeout: .seconds(20))
        // The stale spool stays behind; a new recorder takes the folder over.
        #expect(FileManager.default.fileExists(atPath: folder + "/.ring"))
        let second = try startFlightRecorder(folder)
        kill(second.0.processIdentifier, SIGUSR1)
        usleep(2_000_000)
        kill(second.0.processIdentifier, SIGINT)
        let result = try finish(second, timeout: .seconds(20))
        #expect(result.status == 0, "\(result.errors)")
        let names = snapshots(in: folder).map { $0.split(separator: "/").last.map(String.init) ?? "" }
        #expect(names.count == 2)
        #expect(names.last?.hasPrefix("snapshot-0002-") == true)
        for directory in snapshots(in: folder) { #expect(try tlm("verify", directory).status == 0) }
    }

    @Test func aSnapshotCutShortByKill9RecoversAndVerifies() throws {
        let folder = temporaryPath()
        let running = try startFlightRecorder(folder, window: ["--keep", "1m"])
        kill(running.0.processIdentifier, SIGUSR1)
        // Kill as soon as the snapshot's first segment exists: most often while it is being written.
        let deadline = ContinuousClock.now + .seconds(20)
        var segment: String?
        while ContinuousClock.now < deadline, segment == nil {
            segment = snapshots(in: folder).first.map { $0 + "/000001.mcap" }.flatMap {
                FileManager.default.fileExists(atPath: $0) ? $0 : nil
            }
            if segment == nil { usleep(1_000) }
        }
        kill(running.0.processIdentifier, SIGKILL)
        _ = try? finish(running, timeout: .seconds(20))
        let directory = try #require(snapshots(in: folder).first)
        let recovered = try tlm("recover", directory)
        #expect(recovered.status == 0, "\(recovered.output)\(recovered.errors)")
        #expect(try tlm("verify", directory).status == 0)
        // Killed inside the first chunk, the snapshot holds what reached disk: maybe nothing yet, never damage.
        #expect(recovered.output.contains("000001.mcap") || recovered.output.contains("Nothing to recover"))
    }

    @Test func aFolderHoldingOtherFilesIsRefused() throws {
        let folder = temporaryPath()
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: folder + "/notes.txt", contents: Data("keep".utf8))
        let result = try tlm("record", "--simulate", "--snapshot", "--duration", "1s", "--output", folder)
        #expect(result.status != 0)
        #expect(result.errors.contains("notes.txt, which is not a snapshot"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["notes.txt"])
    }

    @Test func ringOptionsWithoutSnapshotAreRefused() throws {
        let result = try tlm("record", "--simulate", "--duration", "1s", "--keep", "5s", "--output", temporaryPath())
        #expect(result.status != 0)
        #expect(result.errors.contains("apply to --snapshot"))
        let json = try tlm("record", "--simulate", "--snapshot", "--format", "json", "--output", temporaryPath())
        #expect(json.status != 0)
        #expect(json.errors.contains("--format json does not apply to --snapshot"))
    }

    @Test func anUntriggeredFlightRecorderWritesNothing() throws {
        let folder = temporaryPath()
        let result = try tlm("record", "--simulate", "--snapshot", "--duration", "1s", "--output", folder)
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("Flight recorder: 0 snapshot(s)"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }
}

/// The live status's keys, typed into a terminal (`script` gives `tlm` a pseudo-terminal).
@Suite struct StatusKeyTests {
    /// Runs `tlm arguments` on a terminal, typing `keys` (each after its delay from when `ready` holds).
    private func runOnTerminal(
        _ arguments: [String], ready: @escaping () -> Bool, keys: [(Duration, String)]
    ) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        let command = ([tlmPath] + arguments).map { "'\($0)'" }.joined(separator: " ")
        process.arguments = ["-qfec", command, "/dev/null"]
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        waitUntil(timeout: .seconds(30), ready)
        let start = ContinuousClock.now
        for (delay, key) in keys {
            let wait = start + delay - ContinuousClock.now
            if wait > .zero { usleep(UInt32(wait / .microseconds(1))) }
            input.fileHandleForWriting.write(Data(key.utf8))
        }
        process.waitUntilExit()
        return process.terminationStatus
    }

    @Test func mAddsAMarkerToAnOrdinaryRecording() throws {
        let output = temporaryPath()
        let status = try runOnTerminal(
            ["record", "--simulate", "--duration", "5s", "--output", output],
            ready: { FileManager.default.fileExists(atPath: output + "/index.sqlite") },
            keys: [(.seconds(2), "m")])
        #expect(status == 0)
        let info = try RecordingInfo.load(from: output)
        #expect(info.streams.first { $0.topic == "/tlm/marker" }?.messageCount == 1)
    }

    @Test func sTakesASnapshotHoldingItsWindowAndTheMarkerBeforeIt() throws {
        let folder = temporaryPath()
        let status = try runOnTerminal(
            [
                "record", "--simulate", "--snapshot", "--keep", "10s", "--before", "2s", "--after", "500ms",
                "--duration", "7s", "--output", folder,
            ],
            ready: { FileManager.default.fileExists(atPath: folder + "/.ring/index.sqlite") },
            keys: [(.seconds(3), "m"), (.milliseconds(3_500), "s")])
        #expect(status == 0)
        let snapshots = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter {
            $0.hasPrefix("snapshot-")
        }
        #expect(snapshots.count == 1)
        let directory = folder + "/" + (snapshots.first ?? "")
        #expect(try tlm("verify", directory).status == 0)
        let info = try RecordingInfo.load(from: directory)
        let start = info.session.startedAt
        let end = try #require(info.session.endedAt)
        #expect(end - start == 2_500_000_000)
        for stream in info.streams where stream.messageCount > 0 && !stream.latched {
            #expect((stream.firstTime ?? 0) >= start && (stream.lastTime ?? .max) <= end, "\(stream.topic)")
        }
        // The `m` marker half a second before the trigger, and the trigger's own.
        let markers = try RecordingReader(directory: directory).messages(topics: ["/tlm/marker"])
        #expect(markers.count == 2)
    }
}

/// `tlm record --dbus`: org.tlm.Recorder1 on a private session bus, called with `dbus-send`.
@Suite struct RecorderBusCommandTests {
    private func send(_ bus: PrivateBus, _ member: String, _ text: String) throws -> CommandResult {
        try finish(
            try start(
                "/usr/bin/dbus-send",
                [
                    "--bus=" + bus.address, "--print-reply", "--dest=org.tlm.Recorder", "/org/tlm/Recorder1",
                    "org.tlm.Recorder1." + member, "string:" + text,
                ]),
            timeout: .seconds(10))
    }

    @Test func snapshotOverDBusHoldsItsWindowAndTheMarkBeforeIt() throws {
        let bus = try PrivateBus.start()
        defer { bus.stop() }
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        let folder = temporaryPath()
        let running = try start(
            tlmPath,
            [
                "record", "--simulate", "--snapshot", "--dbus", "--keep", "10s", "--before", "2s", "--after", "500ms",
                "--chunk-age", "200ms", "--output", folder,
            ],
            environment: environment)
        waitUntil(timeout: .seconds(30)) { FileManager.default.fileExists(atPath: folder + "/.ring/index.sqlite") }
        usleep(3_000_000)
        #expect(try send(bus, "Mark", "before the fall").status == 0)
        usleep(500_000)
        #expect(try send(bus, "Snapshot", "operator saw a fall").status == 0)
        // Wrong arguments get an error reply, and the recorder goes on.
        let wrong = try finish(
            try start(
                "/usr/bin/dbus-send",
                [
                    "--bus=" + bus.address, "--print-reply", "--dest=org.tlm.Recorder", "/org/tlm/Recorder1",
                    "org.tlm.Recorder1.Snapshot", "int32:3",
                ]),
            timeout: .seconds(10))
        #expect(wrong.status != 0)
        #expect(wrong.errors.contains("InvalidArgs"))
        usleep(2_000_000)
        kill(running.0.processIdentifier, SIGINT)
        let result = try finish(running, timeout: .seconds(20))
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.errors.contains("dbus: operator saw a fall"))
        let snapshots = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter {
            $0.hasPrefix("snapshot-")
        }
        #expect(snapshots.count == 1)
        let directory = folder + "/" + (snapshots.first ?? "")
        let info = try RecordingInfo.load(from: directory)
        let start = info.session.startedAt
        let end = try #require(info.session.endedAt)
        #expect(end - start == 2_500_000_000)
        for stream in info.streams where stream.messageCount > 0 && !stream.latched {
            #expect((stream.firstTime ?? 0) >= start && (stream.lastTime ?? .max) <= end, "\(stream.topic)")
        }
        #expect(try RecordingReader(directory: directory).messages(topics: ["/tlm/marker"]).count == 2)
    }

    @Test func anOrdinaryRecordingTakesMarksAndRefusesSnapshots() throws {
        let bus = try PrivateBus.start()
        defer { bus.stop() }
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        let output = temporaryPath()
        let running = try start(
            tlmPath, ["record", "--simulate", "--dbus", "--duration", "4s", "--output", output],
            environment: environment)
        waitUntil(timeout: .seconds(30)) { FileManager.default.fileExists(atPath: output + "/index.sqlite") }
        usleep(1_000_000)
        #expect(try send(bus, "Mark", "lap").status == 0)
        let refused = try send(bus, "Snapshot", "now")
        #expect(refused.status != 0)
        #expect(refused.errors.contains("NotAFlightRecorder"))
        let result = try finish(running, timeout: .seconds(20))
        #expect(result.status == 0, "\(result.errors)")
        #expect(try RecordingInfo.load(from: output).streams.first { $0.topic == "/tlm/marker" }?.messageCount == 1)
    }

    @Test func withoutASessionBusDBusIsAClearError() throws {
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = nil
        let result = try tlm(
            ["record", "--simulate", "--dbus", "--duration", "1s", "--output", temporaryPath()],
            environment: environment)
        #expect(result.status == 1)
        #expect(result.errors.contains("cannot serve on the session bus: no session bus"))
    }
}
