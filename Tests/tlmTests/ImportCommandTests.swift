import Foundation
import TestSupport
import Testing

/// `tlm import` end to end on the tour's capture (synthetic, see
/// `Tests/CaptureFilesTests/CaptureFixtureTests.swift`): the summary, the
/// recording it makes, and clear errors for bad input.
@Suite struct ImportCommandTests {
    static let capture = repositoryRoot + "/Tests/CaptureFilesTests/Fixtures/five-families.btsnoop"

    @Test func importsTheTourCaptureAndSummarisesDevicesAndHandles() throws {
        let output = temporaryPath()
        let result = try tlm("import", Self.capture, "--output", output)
        #expect(result.status == 0, "\(result.errors)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(
            lines.first == "Imported 1200 values of 6 device(s) from 1 file(s) (1830 packets) into \(output): "
                + "2909 messages on 56 streams.")  // 55 streams and one clock stream (the IMU's, a model every 5 s)
        #expect(
            lines.contains(
                "  comodule C11122334451  C1:11:22:33:44:51 (random)  family by advertisement, 1 connection(s)"))
        #expect(
            lines.contains {
                $0.hasPrefix("    0x0010  c0de0002-0000-4000-8000-00805f9b34fb  discovery") && $0.hasSuffix(" 200")
            })
        #expect(
            lines.contains(
                "  ble D00DF00D0001  D0:0D:F0:0D:00:01 (public)  no known family: raw streams, 1 connection(s)"))
        let query = try tlm("query", output, "--topic", "/fjorden/*/grip", "--to", "+4s", "--format", "csv")
        #expect(query.status == 0)
        #expect(query.output.contains("shutterButtonHalfDown"))
        // The imported recording replays to the same typed streams.
        let again = temporaryPath()
        #expect(try tlm("replay", output, "--output", again).status == 0)
        let original = try tlm("query", output, "--topic", "/comodule/*/speed", "--format", "csv").output
        let replayed = try tlm("query", again, "--topic", "/comodule/*/speed", "--format", "csv").output
        #expect(original == replayed && original.split(separator: "\n").count == 182)
    }

    @Test func badInputIsOneClearLine() throws {
        let missing = try tlm("import", "/nonexistent/capture.log", "--output", temporaryPath())
        #expect(missing.status == 1)
        #expect(missing.errors.contains("/nonexistent/capture.log does not exist (expected a capture file)"))
        let notCapture = try tlm("import", repositoryRoot + "/Package.swift", "--output", temporaryPath())
        #expect(notCapture.status == 1)
        #expect(
            notCapture.errors.contains("Package.swift: not a btsnoop, pcapng or pcap file (it starts with 2f 2f 20 73"))
        let folder = temporaryPath()
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try "0x10 not-a-uuid\n".write(toFile: folder + "/map.txt", atomically: true, encoding: .utf8)
        let badMap = try tlm("import", Self.capture, "--handle-map", folder + "/map.txt", "--output", folder + "/rec")
        #expect(badMap.status == 1)
        #expect(badMap.errors.contains("map.txt:1: 'not-a-uuid' is not a UUID"))
    }
}
