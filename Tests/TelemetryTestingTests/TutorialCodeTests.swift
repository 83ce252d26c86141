import Foundation
import TestSupport
import Testing

/// The DocC tutorial's code (`TelemetryTesting.docc/Resources`) stays the
/// code of real tests: the last step of each section is a link to the file
/// in `Tutorial/` that this target compiles and runs, and every earlier
/// step's lines appear, in order, in that file: a step only adds lines, so
/// no step shows code the tests lack.
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
        let last = URL(fileURLWithPath: "\(Self.resources)/\(section.steps.last!)").resolvingSymlinksInPath()
        let compiled = URL(fileURLWithPath: "\(Self.tests)/\(test)").resolvingSymlinksInPath()
        #expect(last.path == compiled.path, "\(section.steps.last!) is not a link to Tutorial/\(test)")
    }

    @Test(arguments: sections.map(\.test))
    func everyStepOnlyAddsLinesTowardsTheFinalTest(_ test: String) throws {
        let section = try #require(Self.sections.first { $0.test == test })
        let final = try Self.read("\(Self.tests)/\(test)").split(separator: "\n", omittingEmptySubsequences: false)
        for step in section.steps.dropLast() {
            let lines = try Self.read("\(Self.resources)/\(step)").split(
                separator: "\n", omittingEmptySubsequences: false)
            // Every line of the step appears in the final file, in order (the last step is that file).
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
