import Foundation
import Testing

/// Bad input gets one clear line on stderr and a non-zero status, never a crash.
@Suite struct CommandLineErrorTests {
    @Test(arguments: [
        (["record"], "pass --simulate"),
        (["record", "--simulate", "--duration", "abc"], "duration"),
        (["record", "--simulate", "--duration", "-5s"], "duration"),
        (["record", "--simulate", "--zstd-level", "99"], "zstd level 99"),
        (["record", "--simulate", "--chunk-size", "10"], "chunk size"),
        (["record", "--simulate", "--segment-size", "100"], "segment size"),
        (["record", "--simulate", "--seed", "-1"], "seed"),
        (["info", "/nonexistent/recording"], "/nonexistent/recording does not exist (expected a recording directory"),
        (["info"], "Missing expected argument"),
        (["frobnicate"], "Unexpected argument"),
    ])
    func badInputIsAClearErrorWithNonZeroStatus(arguments: [String], expected: String) throws {
        let result = try finish(try start(tlmPath, arguments))
        #expect(result.status != 0)
        #expect(result.errors.contains(expected), "stderr: \(result.errors)")
        #expect(!result.errors.contains("Fatal error") && !result.errors.contains("Stack dump"))
    }

    @Test func recordingIntoANonEmptyDirectoryIsRefusedAndTouchesNothing() throws {
        let directory = temporaryPath()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let keep = directory + "/important.txt"
        #expect(FileManager.default.createFile(atPath: keep, contents: Data("keep".utf8)))
        let result = try tlm("record", "--simulate", "--duration", "1s", "--output", directory)
        #expect(result.status == 1)
        #expect(result.errors.contains("not empty"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["important.txt"])
    }

    @Test func infoOnACorruptIndexSaysSo() throws {
        let directory = temporaryPath()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        #expect(
            FileManager.default.createFile(
                atPath: directory + "/index.sqlite", contents: Data(repeating: 0x41, count: 4096)))
        let result = try tlm("info", directory)
        #expect(result.status == 1)
        #expect(result.errors.hasPrefix("Error: "))
        #expect(result.errors.split(separator: "\n").count == 1)
    }

    @Test func helpShowsExamplesAndSettings() throws {
        let help = try tlm("record", "--help")
        #expect(help.status == 0)
        for text in [
            "--simulate", "--duration", "--output", "--seed", "--chunk-size", "--chunk-age", "--zstd-level",
            "--segment-size", "--segment-duration", "Examples:", "tlm record --simulate --duration 10s",
        ] {
            #expect(help.output.contains(text), "help lacks \(text)")
        }
        let info = try tlm("info", "--help")
        #expect(info.output.contains("--format") && info.output.contains("Examples:"))
        let version = try tlm("--version")
        #expect(version.output.trimmingCharacters(in: .whitespacesAndNewlines) == "0.1.0")
        let verb = try tlm("version")
        #expect(verb.output.hasPrefix("tlm 0.1.0\n") && verb.output.contains("index.sqlite schema: v8"))
        let completion = try tlm("--generate-completion-script", "bash")
        #expect(completion.status == 0 && completion.output.contains("record") && completion.output.contains("query"))
    }
}
