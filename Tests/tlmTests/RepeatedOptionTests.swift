import Foundation
import Testing

/// An option or flag that takes one value, given twice, is a usage error in
/// every verb (ArgumentParser alone keeps the last one with exit status 0).
/// The verbs and their options come from `tlm --experimental-dump-help`, so
/// an option added later is covered without touching this test.
@Suite struct RepeatedOptionTests {
    private struct Tool: Decodable { var command: Command }
    private struct Command: Decodable {
        var commandName: String
        var subcommands: [Command]?
        var arguments: [Argument]?
    }
    private struct Argument: Decodable {
        var kind: String
        var isRepeating: Bool
        var names: [Name]?
    }
    private struct Name: Decodable {
        var kind: String
        var name: String
    }

    /// Every command path with its arguments, from the root down.
    private static func commands() throws -> [(path: [String], arguments: [Argument])] {
        let dump = try tlm("--experimental-dump-help")
        #expect(dump.status == 0, "\(dump.errors)")
        let root = try JSONDecoder().decode(Tool.self, from: Data(dump.output.utf8)).command
        var found: [(path: [String], arguments: [Argument])] = []
        func visit(_ command: Command, path: [String]) {
            found.append((path, command.arguments ?? []))
            for sub in command.subcommands ?? [] where sub.commandName != "help" {
                visit(sub, path: path + [sub.commandName])
            }
        }
        visit(root, path: [])
        return found
    }

    @Test func everySingleValueOptionAndFlagGivenTwiceIsAnErrorNamingIt() throws {
        var cases: [(arguments: [String], name: String)] = []
        for (path, arguments) in try Self.commands() {
            for argument in arguments where argument.kind != "positional" && !argument.isRepeating {
                // --help and --version print and exit whatever else is given: no answer to get wrong.
                guard let name = argument.names?.first(where: { $0.kind == "long" })?.name,
                    name != "help", name != "version"
                else { continue }
                let once = argument.kind == "option" ? ["--\(name)", "x"] : ["--\(name)"]
                cases.append((path + once + once, "--\(name)"))
            }
        }
        // Every verb has some: record, info, query, export, cat, ... (at least 20 verbs).
        #expect(Set(cases.map { $0.arguments.first ?? "" }).count >= 20)
        // Run a few at a time: each is a short process.
        for batch in stride(from: 0, to: cases.count, by: 8).map({ cases[$0..<min($0 + 8, cases.count)] }) {
            let started = try batch.map { try start(tlmPath, $0.arguments) }
            for (run, started) in zip(batch, started) {
                let result = try finish(started)
                #expect(result.status == 1, "\(run.arguments): \(result.errors)")
                #expect(
                    result.errors.contains("\(run.name) is given twice"), "\(run.arguments): \(result.errors)")
                #expect(result.output.isEmpty, "\(run.arguments)")
            }
        }
    }

    @Test func theCaseThatWasFoundPrintsNothingAndNamesBothSpellings() throws {
        let recording = SilentWrongAnswerTests.recording
        let twice = try tlm("info", recording, "--format", "json", "--format", "table")
        #expect(twice.status == 1)
        #expect(twice.output.isEmpty)
        #expect(
            twice.errors.contains(
                "--format is given twice; --format takes one value: give it once (see 'tlm info --help')"),
            "\(twice.errors)")
        // `=`, short names and a flag's inversion (`--align`/`--no-align`) are the same argument.
        for arguments in [
            ["export", recording, "--format=csv", "--format", "jsonl", "-o", "-"],
            ["export", recording, "--format", "csv", "-o", "-", "--output", "x.csv"],
            ["cat", recording, "--from", "+1s", "--from=+0s"],
            ["query", recording, "--topic", "**/acc_x", "--every", "1s", "--align", "--no-align"],
        ] {
            let result = try tlm(arguments, environment: ProcessInfo.processInfo.environment)
            #expect(result.status == 1, "\(arguments)")
            #expect(result.errors.contains("given twice"), "\(arguments): \(result.errors)")
            #expect(result.output.isEmpty, "\(arguments)")
        }
        let both = try tlm("export", recording, "--format", "csv", "-o", "-", "--output", "x.csv")
        #expect(both.errors.contains("-o and --output are given twice"), "\(both.errors)")
        // Repeatable options stay repeatable; a value that looks like the option is a value.
        let topics = try tlm("query", recording, "--topic", "**/acc_x", "--topic", "**/speed", "--format", "jsonl")
        #expect(topics.status == 0, "\(topics.errors)")
        let value = try tlm("decode", "--family", "diot", "--characteristic", "D001", "--", "--family")
        #expect(!value.errors.contains("given twice"), "\(value.errors)")
    }
}
