import Foundation
import TestSupport
import Testing

/// The README's tour runs as written: every `tlm` command of its code
/// blocks, in order, in one scratch directory (with the repository's
/// `Pipelines` and capture fixtures linked in), through a shell, so the tour cannot
/// drift from the tool again. The few commands that need a live BlueZ, a
/// recording being written, or serve a viewer for minutes are listed in
/// ``notRun`` with the reason; every other command must exit 0, or 3 where
/// the tour records loss on purpose.
@Suite(.timeLimit(.minutes(10))) struct ReadmeTourTests {
    /// Commands of the tour not run here, by their text, and why.
    static let notRun: [String: String] = [
        "tlm record --device C0:FF:EE:00:00:01 --duration 10m --output hike":
            "a live device through BlueZ (LiveCaptureCommandTests records through the fake BlueZ)",
        "tlm cat live --follow --topic '**/gesture'": "follows a recording another process is writing",
        "tlm record --simulate --duration 10m --serve 8765": "serves a viewer for ten minutes on a fixed port",
        "tlm serve ride --rate 10": "serves on the fixed port 8765 (LiveViewTests serve on free ports)",
        "tlm serve ride --listen 0.0.0.0:8765 --wait-for-client --from +30s --to +60s":
            "waits for a Foxglove client",
        "tlm scan": "needs BlueZ (LiveCaptureCommandTests scans the fake BlueZ)",
        "tlm record --device DIoT-1 --duration 3s --output walk": "needs BlueZ (the fake BlueZ's tests run it)",
        "tlm info walk | sed -n '/^Loss/,$p'": "reads the recording of the BlueZ step above",
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
        // Every command listed as not run is still in the tour (the list cannot go stale).
        for command in Self.notRun.keys { #expect(commands.contains(command), "not in the tour: \(command)") }
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
        var ran = 0
        for command in try Self.commands() where Self.notRun[command] == nil {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = ["-c", command]
            process.currentDirectoryURL = URL(fileURLWithPath: directory)
            process.environment = environment
            let output = URL(fileURLWithPath: directory + "/.tour-output")
            _ = FileManager.default.createFile(atPath: output.path, contents: nil)
            let handle = try FileHandle(forWritingTo: output)
            process.standardOutput = handle
            process.standardError = handle
            try process.run()
            let deadline = ContinuousClock.now + hangGuard(.seconds(120))
            while process.isRunning, ContinuousClock.now < deadline { usleep(20_000) }
            if process.isRunning {
                process.terminate()
                process.waitUntilExit()
                Issue.record("'\(command)' did not finish in 120 s")
                continue
            }
            try handle.close()
            let printed = String(decoding: try Data(contentsOf: output), as: UTF8.self)
            // 3: loss recorded, as the faults scenario does on purpose.
            let allowed: Set<Int32> = command.contains("--scenario faults") ? [0, 3] : [0]
            #expect(
                allowed.contains(process.terminationStatus),
                "'\(command)' exited \(process.terminationStatus):\n\(printed)")
            ran += 1
        }
        #expect(ran >= 25)
    }
}
