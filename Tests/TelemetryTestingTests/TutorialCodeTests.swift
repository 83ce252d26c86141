import Foundation
import TestSupport
import Testing

/// The DocC tutorial's code (`TelemetryTesting.docc/Resources`) stays the
/// code of real tests: the last step of each section is a whole test file,
/// and it must be the file in `Tutorial/` that this target compiles and
/// runs. Every step's lines must appear, in order, in its section's final
/// test: a step only adds lines, so no step shows code the tests lack.
@Suite struct TutorialCodeTests {
    static let resources = "\(repositoryRoot)/Sources/TelemetryTesting/TelemetryTesting.docc/Resources"
    static let tests = "\(repositoryRoot)/Tests/TelemetryTestingTests/Tutorial"

    /// Each section: its step files in order, and the test file its last step is.
    static let sections: [(steps: [String], test: String)] = [
        ((1...6).map { "scheduler-01-0\($0).swift" }, "GripPressTests.swift"),
        ((1...4).map { "scheduler-02-0\($0).swift" }, "SilentSensorTests.swift"),
        ((1...4).map { "scheduler-03-0\($0).swift" }, "ReconnectTests.swift"),
    ]

    static func read(_ path: String) throws -> String {
        try String(contentsOfFile: path, encoding: .utf8)
    }

    @Test(arguments: sections.map(\.test))
    func theLastStepOfEachSectionIsTheCompiledTest(_ test: String) throws {
        let section = try #require(Self.sections.first { $0.test == test })
        let last = try Self.read("\(Self.resources)/\(section.steps.last!)")
        #expect(
            last == (try Self.read("\(Self.tests)/\(test)")), "\(section.steps.last!) differs from Tutorial/\(test)")
    }

    @Test(arguments: sections.map(\.test))
    func everyStepOnlyAddsLinesTowardsTheFinalTest(_ test: String) throws {
        let section = try #require(Self.sections.first { $0.test == test })
        let final = try Self.read("\(Self.tests)/\(test)").split(separator: "\n", omittingEmptySubsequences: false)
        for step in section.steps {
            let lines = try Self.read("\(Self.resources)/\(step)").split(
                separator: "\n", omittingEmptySubsequences: false)
            // Every line of the step appears in the final file, in order.
            var position = final.startIndex
            for line in lines {
                guard let found = final[position...].firstIndex(of: line) else {
                    Issue.record("\(step): \"\(line)\" is not in Tutorial/\(test) after line \(position + 1)")
                    break
                }
                position = found + 1
            }
        }
    }
}
