import Devices
import Foundation
import Recording
import TestSupport
import Testing

/// The README's tour runs as written: every `tlm` command of its code
/// blocks, in order, in one scratch directory (with the repository's
/// `Pipelines` and capture fixtures linked in), through a shell, so the tour cannot
/// drift from the tool again. The commands that need more than a shell get
/// it from ``harnesses``: the fake BlueZ for live devices, no system bus for
/// the error the tour shows, a recording being written to follow, a Foxglove
/// client for the live view, and Ctrl-C (SIGINT) for the ones that run for
/// minutes. Every command must exit 0, or 3 where loss is recorded, or
/// what its harness expects.
@Suite(.timeLimit(.minutes(10))) struct ReadmeTourTests {
    /// What a command needs besides a shell.
    enum Harness: Sendable {
        /// Live devices: the fake BlueZ (Tests/FakeBlueZ) plays the tour's two.
        case fakeBlueZ
        /// As ``fakeBlueZ``, stopped with SIGINT (Ctrl-C) after this many seconds.
        case fakeBlueZInterrupted(seconds: Double)
        /// No system bus: the command must fail (status 1) saying so.
        case noBus
        /// Follows a recording that this command writes meanwhile.
        case whileRecording(writer: String)
        /// A flight recorder: SIGUSR1 once its ring runs, SIGINT a moment
        /// later; one snapshot must be written.
        case snapshotOnSignal
        /// Serves on port 8765: a Foxglove client reads from it, then SIGINT
        /// stops it (`interrupt`) or it ends by itself.
        case withClient(interrupt: Bool)
    }

    /// The harness of each command that needs one, by its text, one per
    /// occurrence in the tour.
    static let harnesses: [String: [Harness]] = [
        "tlm record --device C0:FF:EE:00:00:01 --duration 10m --output hike": [.fakeBlueZInterrupted(seconds: 3)],
        "tlm cat live --follow --topic '**/gesture'": [
            .whileRecording(writer: "tlm record --simulate --duration 10s --seed 1 --output live")
        ],
        "tlm record --simulate --duration 10m --serve 8765": [.withClient(interrupt: true)],
        "tlm serve ride --listen 0.0.0.0:8765 --wait-for-client --from +2s --to +6s": [.withClient(interrupt: false)],
        "tlm scan": [.fakeBlueZ, .noBus],
        "tlm record --simulate --snapshot --keep 2m --after 10s --output falls": [.snapshotOnSignal],
        "tlm record --device DIoT-1 --duration 3s --output walk": [.fakeBlueZ],
    ]

    /// The tour's commands: lines of its code blocks that start with `tlm`
    /// (after a `$ ` prompt or not), continuation lines joined, comments dropped.
    static func commands() throws -> [String] {
        let readme = try String(contentsOfFile: repositoryRoot + "/README.md", encoding: .utf8)
        let start = try #require(readme.range(of: "\n## Tour\n"))
        let end = try #require(readme.range(of: "\n## ", range: start.upperBound..<readme.endIndex))
        var commands: [String] = []
        var inBlock = false
        var pending: String?
        for raw in readme[start.upperBound..<end.lowerBound].split(separator: "\n", omittingEmptySubsequences: false) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("```") {
                inBlock.toggle()
                continue
            }
            guard inBlock else { continue }
            if var command = pending {
                command += " " + line
                pending = nil
                if command.hasSuffix("\\") {
                    pending = String(command.dropLast()).trimmingCharacters(in: .whitespaces)
                } else {
                    commands.append(Self.withoutComment(command))
                }
                continue
            }
            let text = line.hasPrefix("$ ") ? String(line.dropFirst(2)) : line
            guard text.hasPrefix("tlm ") || text == "tlm" else { continue }
            if text.hasSuffix("\\") {
                pending = String(text.dropLast()).trimmingCharacters(in: .whitespaces)
            } else {
                commands.append(Self.withoutComment(text))
            }
        }
        return commands
    }

    /// A command without its trailing `# comment` (a `#` after two spaces, outside quotes).
    static func withoutComment(_ command: String) -> String {
        var quote: Character?
        var previous: [Character] = []
        for (offset, character) in command.enumerated() {
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "'" || character == "\"" {
                quote = character
            } else if character == "#", previous.suffix(2) == [" ", " "] {
                return String(command.prefix(offset)).trimmingCharacters(in: .whitespaces)
            }
            previous.append(character)
        }
        return command
    }

    @Test func theTourHasItsCommandsAndEachWritesANewRecording() throws {
        let commands = try Self.commands()
        #expect(commands.count >= 30, "\(commands)")
        // Every command with a harness is still in the tour, as often as it has harnesses.
        for (command, harnesses) in Self.harnesses {
            #expect(commands.filter { $0 == command }.count == harnesses.count, "in the tour: \(command)")
        }
        // Each step writes to a name of its own.
        var outputs: [String: String] = [:]
        for command in commands where !command.contains("--follow") {
            let words = command.split(separator: " ").map(String.init)
            for (index, word) in words.enumerated() where word == "--output" || word == "-o" {
                guard index + 1 < words.count, words[index + 1] != "-" else { continue }
                let output = words[index + 1]
                #expect(outputs[output] == nil, "\(output) is written by '\(outputs[output] ?? "")' and '\(command)'")
                outputs[output] = command
            }
        }
    }

    /// The fake BlueZ playing the tour's live devices: DIoT-1 and the
    /// device at C0:FF:EE:00:00:01 it records as `hike`.
    static func startFakeBlueZ() throws -> FakeBlueZ {
        var diot = FakeFamilyDevice.make(.diot, seed: 1, address: "F0:00:00:00:00:01", seconds: 60)
        diot.device.name = "DIoT-1"
        diot.device.rssi = -55
        let hike = FakeFamilyDevice.make(.fjorden, seed: 2, address: "C0:FF:EE:00:00:01", seconds: 60)
        return try FakeBlueZ.start(scenario: FakeBlueZScenario(devices: [diot.device, hike.device]))
    }

    @Test func everyTourCommandRunsAsWritten() throws {
        let directory = TestScratch.path("readme-tour-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The repository's pipelines and capture fixtures; what the tour writes stays here.
        try FileManager.default.createDirectory(atPath: directory + "/Tests", withIntermediateDirectories: true)
        for linked in ["Pipelines", "Tests/CaptureFilesTests"] {
            try FileManager.default.createSymbolicLink(
                atPath: directory + "/" + linked, withDestinationPath: repositoryRoot + "/" + linked)
        }
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] =
            URL(fileURLWithPath: tlmPath).deletingLastPathComponent().path + ":"
            + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["TZ"] = nil
        var fake: FakeBlueZ?
        defer { fake?.stop() }
        var seen: [String: Int] = [:]
        var ran = 0
        for command in try Self.commands() {
            let occurrence = seen[command, default: 0]
            seen[command] = occurrence + 1
            let harness = Self.harnesses[command].flatMap { $0.indices.contains(occurrence) ? $0[occurrence] : nil }
            var shell = Shell(directory: directory, environment: environment)
            switch harness {
            case .fakeBlueZ?, .fakeBlueZInterrupted?:
                if fake == nil { fake = try Self.startFakeBlueZ() }
                shell.environment["DBUS_SYSTEM_BUS_ADDRESS"] = fake!.address
            case .noBus?:
                shell.environment["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=\(directory)/no-bus"
            default:
                break
            }
            var writer: Shell.Running?
            if case .whileRecording(let text)? = harness {
                writer = try shell.start(text, output: ".tour-writer")
                try shell.wait(for: "live/index.sqlite")
            }
            let running = try shell.start(command, output: ".tour-output")
            switch harness {
            case .fakeBlueZInterrupted(let seconds)?:
                usleep(UInt32(seconds * 1e6))
                running.process.interrupt()
            case .snapshotOnSignal?:
                try shell.wait(for: "falls/.ring/index.sqlite")
                usleep(2_000_000)
                kill(running.process.processIdentifier, SIGUSR1)
                usleep(1_500_000)
                running.process.interrupt()
            case .withClient(let interrupt)?:
                try shell.waitForOutput(running, containing: "serving ws://")
                let read = try runPython(
                    script: "foxglove_client.py",
                    arguments: ["ws://127.0.0.1:8765", "--until-messages", "20", "--max-seconds", "30"])
                let client = try JSONSerialization.jsonObject(with: read) as? [String: Any]
                #expect((client?["messages"] as? [Any])?.count ?? 0 >= 20, "'\(command)': \(client ?? [:])")
                if interrupt { running.process.interrupt() }
            default:
                break
            }
            let (status, printed) = try running.finish()
            ran += 1
            switch harness {
            case .noBus?:
                #expect(
                    status == 1 && printed.contains("cannot reach the D-Bus system bus"), "'\(command)': \(printed)")
            case .whileRecording?:
                #expect(status == 0 && printed.contains("gesture"), "'\(command)' exited \(status):\n\(printed)")
                let (writerStatus, writerOutput) = try writer!.finish()
                #expect(writerStatus == 0, "\(writerOutput)")
            case .snapshotOnSignal?:
                #expect(status == 0 && printed.contains("Flight recorder: 1 snapshot(s)"), "'\(command)': \(printed)")
            case .fakeBlueZ?, .fakeBlueZInterrupted?:
                #expect([0, 3].contains(status), "'\(command)' exited \(status):\n\(printed)")
                // What the tour shows: the scan lists DIoT-1, the recordings hold the devices' streams.
                if command == "tlm scan" { #expect(printed.contains("DIoT-1  F0:00:00:00:00:01"), "\(printed)") }
                if let name = command.split(separator: " ").last, command.contains("--output") {
                    let info = try RecordingInfo.load(from: directory + "/" + name)
                    #expect(info.messageCount > 0, "\(command): \(printed)")
                }
            default:
                // 3: loss recorded, as the faults scenario does on purpose.
                let allowed: [Int32] = command.contains("--scenario faults") ? [0, 3] : [0]
                #expect(allowed.contains(status), "'\(command)' exited \(status):\n\(printed)")
            }
        }
        #expect(ran == (try Self.commands().count))
    }

    /// Runs tour commands through bash in the tour's directory.
    struct Shell {
        let directory: String
        var environment: [String: String]

        /// A command started, its output (both streams) going to a file.
        struct Running {
            let process: Process
            let output: String
            let command: String

            /// Waits for it (at most 120 s, then it is killed and the test fails) and returns its status and output.
            func finish() throws -> (Int32, String) {
                let deadline = ContinuousClock.now + hangGuard(.seconds(120))
                while process.isRunning, ContinuousClock.now < deadline { usleep(20_000) }
                if process.isRunning {
                    process.terminate()
                    process.waitUntilExit()
                    Issue.record("'\(command)' did not finish in 120 s")
                }
                process.waitUntilExit()
                return (process.terminationStatus, text())
            }

            func text() -> String {
                String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: output))) ?? Data(), as: UTF8.self)
            }
        }

        func start(_ command: String, output: String) throws -> Running {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            // exec: the signal for Ctrl-C reaches tlm itself, not the shell.
            process.arguments = ["-c", command.contains("|") ? command : "exec " + command]
            process.currentDirectoryURL = URL(fileURLWithPath: directory)
            process.environment = environment
            let path = directory + "/" + output
            _ = FileManager.default.createFile(atPath: path, contents: nil)
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            process.standardOutput = handle
            process.standardError = handle
            try process.run()
            try handle.close()
            return Running(process: process, output: path, command: command)
        }

        /// Waits (at most 20 s) until `relative` exists in the directory.
        func wait(for relative: String) throws {
            let deadline = ContinuousClock.now + hangGuard(.seconds(20))
            while !FileManager.default.fileExists(atPath: directory + "/" + relative) {
                guard ContinuousClock.now < deadline else { throw CommandError("no \(relative) after 20 s") }
                usleep(20_000)
            }
        }

        /// Waits (at most 20 s) until the command has printed `text`.
        func waitForOutput(_ running: Running, containing text: String) throws {
            let deadline = ContinuousClock.now + hangGuard(.seconds(20))
            while !running.text().contains(text) {
                guard ContinuousClock.now < deadline, running.process.isRunning else {
                    throw CommandError("'\(running.command)' did not print '\(text)': \(running.text())")
                }
                usleep(20_000)
            }
        }
    }
}
