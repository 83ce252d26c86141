import Foundation
import TestSupport
import Testing

/// Issue 36's fuzzing of hostile text in recordings: device and session
/// names, units, chunk compressions, loss reasons (written into a copy's index
/// with sqlite3) and metadata records (`tlm add metadata`) made of control
/// characters, terminal escapes, HTML, XML-invalid characters and invalid
/// UTF-8, then read by `info`, `list`, `get metadata`, `report` (HTML) and
/// `plot` (SVG). A run is a silent wrong answer when a terminal-facing output
/// (stdout of the text verbs, every stderr) holds a raw control or bidi
/// character, or the HTML holds a live element from the data, or an SVG is
/// not well-formed XML (checked by Tests/Python/hostile_markup.py).
@Suite struct HostileTextFuzzTests {
    static let recording: String = {
        let output = temporaryPath("hostileTextRecording")
        let result = try? tlm(
            "record", "--simulate", "--family", "diot", "--duration", "1s", "--chunk-age", "200ms", "--seed", "36",
            "-q", "--output", output)
        precondition(result?.status == 0, "cannot record the fixture: \(result?.errors ?? "")")
        return output
    }()

    /// Pieces of hostile text, as bytes (some not UTF-8).
    static let pieces: [[UInt8]] =
        [
            "\u{1B}]0;owned\u{07}", "\u{1B}[2K", "\u{1B}[31m", "<script>alert(36)</script>", "\"'&<>", "&amp;",
            "]]>", "\u{0}", "\u{7F}", "\u{85}", "\u{9B}2J", "\u{202E}", "\u{2066}", "\r", "\n", "\t", "\u{FFFE}",
            "\u{8}", "<x36>", "<svg onload=alert(36)>", "</text><x36/>", "<!--", "acc", "ü", "🚲",
        ].map { Array($0.utf8) } + [[0xFF], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xE2, 0x82]]

    static func hostile(_ random: inout SplitMix64) -> [UInt8] {
        (0..<Int.random(in: 1...5, using: &random)).flatMap { _ in pieces.randomElement(using: &random)! }
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// A raw control (but newline), DEL, C1 or bidi control character in `text`, if any.
    static func unsafeForTerminal(_ text: String) -> Unicode.Scalar? {
        text.unicodeScalars.first {
            ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value)
                || (0x202A...0x202E).contains($0.value) || (0x2066...0x2069).contains($0.value)
        }
    }

    @Test func hostileTextIsEscapedEverywhereItIsShown() throws {
        var random = SplitMix64(seed: 0x36_7E47)
        var tally = FuzzTally("hostile text", memoryBoundMiB: 512)
        let base = temporaryPath()
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: base) }
        let topic = "/diot/*/acc_x"
        for run in 0..<(3 * fuzzScale) {
            let copy = base + "/r\(run)"
            try FileManager.default.copyItem(atPath: Self.recording, toPath: copy)
            var statements: [String] = []
            var what: [String] = []
            for (table, column) in [
                ("devices", "name"), ("streams", "unit"), ("sessions", "name"), ("losses", "reason"),
                ("chunks", "compression"),
            ] where Bool.random(using: &random) || table == "devices" {
                let value = Self.hostile(&random)
                statements.append("UPDATE \(table) SET \(column) = CAST(X'\(Self.hex(value))' AS TEXT);")
                what.append("\(table).\(column) = \(value)")
            }
            let sql = try finish(try start("/usr/bin/sqlite3", [copy + "/index.sqlite", statements.joined()]))
            #expect(sql.status == 0, "sqlite3: \(sql.errors)")
            // A command line cannot hold NUL; a key cannot hold '='.
            let value = String(decoding: Self.hostile(&random).filter { $0 != 0 }, as: UTF8.self)
            let key = String(decoding: Self.hostile(&random).filter { $0 != 0 && $0 != 0x3D }, as: UTF8.self)
            let label = "run \(run) (\(what.joined(separator: ", ")), metadata \(Array(key.utf8))=\(Array(value.utf8)))"
            var outputs: [(String, MeasuredRun, Bool)] = []
            let metadata = try MeasuredRun.tlm(["add", "metadata", copy, "fz<36>", "k\(key)=\(value)"])
            outputs.append(("add metadata", metadata, false))
            for (verb, arguments, terminal) in [
                ("info", ["info", copy], true), ("info json", ["info", copy, "--format", "json"], false),
                ("list channels", ["list", "channels", copy], true),
                ("list metadata", ["list", "metadata", copy], true),
                ("report", ["report", copy, "--topic", topic, "-q", "--output", copy + "/report.html"], true),
                ("plot", ["plot", copy, "--topic", topic, "-q", "--output", copy + "/plot.svg"], true),
            ] {
                outputs.append((verb, try MeasuredRun.tlm(arguments), terminal))
            }
            let files = [copy + "/report.html", copy + "/plot.svg"].filter {
                FileManager.default.fileExists(atPath: $0)
            }
            var wrong: [String] = []
            if !files.isEmpty {
                let checked = try finish(try start("/usr/bin/python3", [pythonScript("hostile_markup.py")] + files))
                #expect(checked.status == 0, "\(checked.errors)")
                wrong +=
                    (try? JSONDecoder().decode([String].self, from: Data(checked.output.utf8))) ?? [
                        "the checker said \(checked.output) \(checked.errors)"
                    ]
            }
            // The case's outcome: the first failure of a verb, else a wrong output, else a clear error, else ok.
            var outcome: FuzzTally.Outcome = .ok
            var failure = ""
            for (verb, result, terminal) in outputs {
                let ended = tally.classify(result, accepted: [0, 3])
                if let ended, ended != .clearError {
                    if outcome == .ok || outcome == .clearError {
                        (outcome, failure) = (ended, "\(verb): \(FuzzTally.describe(result))")
                    }
                    continue
                }
                if ended == .clearError, outcome == .ok { outcome = .clearError }
                if let scalar = Self.unsafeForTerminal(result.errors) {
                    wrong.append("\(verb) stderr holds U+\(String(scalar.value, radix: 16))")
                }
                if terminal, let scalar = Self.unsafeForTerminal(result.output) {
                    wrong.append("\(verb) stdout holds U+\(String(scalar.value, radix: 16))")
                }
            }
            if outcome == .ok || outcome == .clearError, !wrong.isEmpty {
                (outcome, failure) = (.silentWrong, wrong.joined(separator: "; "))
            }
            tally.add(outcome, "\(label): \(failure)")
        }
        print(tally)
        #expect(tally.bad == 0, "\(tally)\n\(tally.failures.joined(separator: "\n"))")
    }
}

/// The path of a script of Tests/Python.
func pythonScript(_ name: String) -> String { repositoryRoot + "/Tests/Python/" + name }
