/// How a ``TestRun`` differs from what the test expected: both outputs and
/// the run's issues, for the failure message.
///
/// ```swift
/// if let mismatch = run.mismatch(expected: "-a-b|") { Issue.record("\(mismatch)") }
/// ```
public struct TestMismatch: Sendable, Equatable, CustomStringConvertible {
    /// The expected output.
    public var expected: String
    /// The recorded output.
    public var actual: String
    /// The run's issues (see ``TestRun/issues``).
    public var issues: [String]

    /// Creates a mismatch.
    ///
    /// - Parameters:
    ///   - expected: The expected output.
    ///   - actual: The recorded output.
    ///   - issues: The run's issues.
    public init(expected: String, actual: String, issues: [String] = []) {
        self.expected = expected
        self.actual = actual
        self.issues = issues
    }

    /// Both outputs and the issues, for failure messages.
    public var description: String {
        var text = "expected \(expected), actual \(actual)"
        if !issues.isEmpty {
            text += "; issues: " + issues.joined(separator: "; ")
        }
        return text
    }
}
