import Devices
import Foundation
import TestSupport
import Testing

/// The capture the README tour imports, `Tests/CaptureFilesTests/Fixtures/five-families.btsnoop`:
/// synthetic (made by this suite's writer from the simulators, seed 7), so
/// the repository ships no third-party capture. `TLM_WRITE_FIXTURES=1`
/// writes it again; otherwise the stored file must be exactly what the
/// writer makes and import to the simulators' values.
@Suite struct CaptureFixtureTests {
    static let path = repositoryRoot + "/Tests/CaptureFilesTests/Fixtures/five-families.btsnoop"

    static func scenario() -> CaptureScenario {
        CaptureScenario.make(families: [.diot, .comodule, .jacquard, .fjorden, .obvious], count: 200, unknown: true)
    }

    @Test func theTourCaptureIsWhatTheWriterMakesAndImportsToTheSimulatorsValues() async throws {
        let scenario = Self.scenario()
        let bytes = CaptureFileWriter.write(scenario.packets, as: .btsnoopH4)
        if ProcessInfo.processInfo.environment["TLM_WRITE_FIXTURES"] == "1" {
            try FileManager.default.createDirectory(
                atPath: (Self.path as NSString).deletingLastPathComponent,
                withIntermediateDirectories: true)
            try Data(bytes).write(to: URL(fileURLWithPath: Self.path))
        }
        let stored = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.path)))
        #expect(stored == bytes)
        let reference = makeTemporaryDirectory("reference") + "/ref"
        try scenario.referenceRecording(at: reference)
        let (directory, _, _) = try await importCapture([stored])
        #expect(try expectSameStreams(directory, as: reference) > 0)
    }
}
