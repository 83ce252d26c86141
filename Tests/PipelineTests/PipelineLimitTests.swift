import Foundation
import Pipeline
import Quantities
import Recording
import TestSupport
import Testing

/// Hostile pipeline files: expressions too deep or too large, files that are
/// not regular files or too large, sizes and durations, are load errors at
/// `file:line:column`, never a crash.
@Suite struct PipelineLimitTests {
    static func yaml(value: String) -> String {
        """
        name: limits
        devices:
          - family: diot
            source: {simulated: {seed: 1}}
        derived:
          - name: e
            combineLatest: {x: /diot/*/acc_x, y: /diot/*/acc_y}
            value: \(value)

        """
    }

    func loadError(_ yaml: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> PipelineError? {
        do {
            _ = try Pipeline(yaml: yaml, file: "p.yaml")
            Issue.record("expected an error", sourceLocation: sourceLocation)
            return nil
        } catch {
            return error
        }
    }

    // MARK: - Expressions

    @Test func thirtyThousandParenthesesAreADepthError() throws {
        let nested = String(repeating: "(", count: 30_000) + "x" + String(repeating: ")", count: 30_000)
        let error = try #require(loadError(Self.yaml(value: nested)))
        // `value: ` starts at column 5 of line 8; the 65th '(' is the first too deep.
        #expect(error.description == "p.yaml:8:76: in value: the expression is nested more than 64 deep")
        #expect(error.code == .invalidValue)
    }

    @Test(arguments: [
        String(repeating: "-", count: 10_000) + "x",
        String(repeating: "x^", count: 10_000) + "x",
        String(repeating: "sqrt(", count: 10_000) + "x" + String(repeating: ")", count: 10_000),
        String(repeating: "(-", count: 5_000) + "x" + String(repeating: ")", count: 5_000),
    ])
    func everyKindOfNestingCountsTowardsTheDepth(value: String) throws {
        let error = try #require(loadError(Self.yaml(value: value)))
        #expect(error.message == "in value: the expression is nested more than 64 deep", "\(error)")
        #expect(error.line == 8)
    }

    @Test func sixtyFourLevelsAreAllowedAndSixtyFiveAreNot() throws {
        let text = String(repeating: "(", count: 64) + "x + 1" + String(repeating: ")", count: 64)
        let expression = try ValueExpression(parsing: text, variables: ["x"])
        #expect(expression.evaluate([2]) == 3)
        do {
            _ = try ValueExpression(parsing: "(" + text + ")", variables: ["x"])
            Issue.record("65 levels parsed")
        } catch {
            #expect(error.offset == 64 && error.message == "the expression is nested more than 64 deep")
        }
    }

    @Test func aHundredThousandTermSumIsASizeError() throws {
        let sum = Array(repeating: "x", count: 100_000).joined(separator: "+")
        let error = try #require(loadError(Self.yaml(value: sum)))
        #expect(error.description == "p.yaml:8:12: in value: the expression is longer than 64 KiB (199999 bytes)")
    }

    @Test func moreThanAThousandTermsIsAnError() throws {
        let sum = Array(repeating: "x", count: 1_001).joined(separator: "+")
        let error = try #require(loadError(Self.yaml(value: sum)))
        // The 1,001st term is at offset 2,000 of the expression, which starts at column 12.
        #expect(error.description == "p.yaml:8:2012: in value: the expression has more than 1000 terms")
    }

    @Test func aThousandTermSumEvaluatesWithoutRecursion() throws {
        let terms = (0..<1_000).map { $0.isMultiple(of: 2) ? "x" : "y" }.joined(separator: " + ")
        let expression = try ValueExpression(parsing: terms, variables: ["x", "y"])
        #expect(expression.evaluate([1, 2]) == 1_500)
        let product = try ValueExpression(
            parsing: Array(repeating: "x", count: 1_000).joined(separator: "*"),
            variables: ["x"])
        #expect(product.evaluate([1.001]) == (0..<999).reduce(1.001) { value, _ in value * 1.001 })
    }

    @Test func evaluationKeepsPrecedenceAndAssociativity() throws {
        let cases: [(String, Double)] = [
            ("x - y - 1", 3 - 4 - 1), ("x / y / 2", 3.0 / 4 / 2), ("2^3^2", 512), ("-x^2", -9),
            ("x + y * 2", 11), ("(x + y) * 2", 14), ("min(x, y, -1) + max(x)", 2), ("hypot(x, y)", 5),
            ("atan2(0, -1)", .pi), ("-(-x)", 3), ("+x - +y", -1), ("abs(-y) + sqrt(y)", 6),
        ]
        for (text, expected) in cases {
            let expression = try ValueExpression(parsing: text, variables: ["x", "y"])
            #expect(expression.evaluate([3, 4]) == expected, "\(text)")
        }
    }

    // MARK: - Files

    @Test func aFIFOADeviceOrADirectoryIsNotAPipelineFile() throws {
        let fifo = NSTemporaryDirectory() + "pipeline-fifo-\(UUID().uuidString).yaml"
        #expect(mkfifo(fifo, 0o600) == 0)
        defer { try? FileManager.default.removeItem(atPath: fifo) }
        for (path, kind) in [
            (fifo, "a FIFO"), ("/dev/zero", "a character device"), (NSTemporaryDirectory(), "a directory"),
        ] {
            do {
                _ = try Pipeline(contentsOfFile: path)
                Issue.record("\(path) loaded")
            } catch {
                #expect(error.code == .io)
                #expect(
                    error.description == "\(path): cannot read the pipeline file: it is \(kind), not a regular file")
            }
        }
    }

    @Test func aPipelineFileOfMoreThanOneMiBIsRefused() throws {
        let file = NSTemporaryDirectory() + "pipeline-big-\(UUID().uuidString).yaml"
        let text = Self.yaml(value: "x + y") + String(repeating: "#\n", count: 600_000)
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        #expect(throws: PipelineError.self) { _ = try Pipeline(contentsOfFile: file) }
        do { _ = try Pipeline(contentsOfFile: file) } catch {
            #expect(error.description == "\(file): cannot read the pipeline file: it is larger than 1 MiB")
        }
        let small = NSTemporaryDirectory() + "pipeline-small-\(UUID().uuidString).yaml"
        try Self.yaml(value: "x + y").write(toFile: small, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: small) }
        #expect(try Pipeline(contentsOfFile: small).derived.count == 1)
    }

    // MARK: - Sizes and durations

    @Test(arguments: [
        ("65536", UInt64(65_536)), ("64KiB", 65_536), ("256MiB", 256 << 20), ("1GiB", 1 << 30),
        ("1_048_576", 1 << 20), ("500kB", 500_000), ("10MB", 10_000_000), ("2GB", 2_000_000_000),
        ("4096B", 4096), (" 8 KiB ", 8192),
    ])
    func theSizeFormsBothSidesAccept(text: String, bytes: UInt64) throws {
        #expect(try ByteSize(parsing: text).bytes == bytes)
        guard bytes >= 64 << 10 else { return }
        let pipeline = try Pipeline(
            yaml: "name: s\ndevices:\n  - family: diot\n    source: {simulated: {}}\n"
                + "recording: {segmentSize: '\(text)'}\n")
        #expect(pipeline.recording.configuration.segmentSize == bytes)
    }

    @Test(arguments: ["", "KiB", "-1KiB", "1.5MiB", "1 MB/s", "0x10", "99999999999GiB", "1e3"])
    func malformedSizes(text: String) {
        #expect(throws: QuantityParseError.self) { try ByteSize(parsing: text) }
    }

    @Test(arguments: [
        ("100ns", Duration.nanoseconds(100)), ("250us", .microseconds(250)), ("250ms", .milliseconds(250)),
        ("1.5s", .milliseconds(1500)), ("2m", .seconds(120)), ("1h", .seconds(3600)),
        ("8784h", .seconds(8784 * 3600)),
    ])
    func theDurationFormsBothSidesAccept(text: String, duration: Duration) throws {
        #expect(try DurationSyntax.parse(text) == duration)
    }

    @Test(arguments: [
        ("500", "'500' needs a unit (ns, us, ms, s, m or h), e.g. 500ms or 500s"),
        ("-1s", "-1s must be positive"), ("0ms", "0ms must be positive"),
        ("8785h", "8785h is longer than the maximum of 366 days"),
        ("1e300s", "1e300s is longer than the maximum of 366 days"),
        ("0.1ns", "0.1ns is shorter than a nanosecond"),
        ("nan s", "'nan s' is not a duration (a number with a unit: ns, us, ms, s, m or h, e.g. 250ms or 10s)"),
        (
            "ten seconds",
            "'ten seconds' is not a duration (a number with a unit: ns, us, ms, s, m or h, e.g. 250ms or 10s)"
        ),
    ])
    func badDurations(text: String, message: String) {
        do {
            _ = try DurationSyntax.parse(text)
            Issue.record("\(text) parsed")
        } catch {
            #expect(error.message == message)
        }
    }
}
