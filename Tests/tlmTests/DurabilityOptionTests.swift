import Foundation
import Recording
import RecordingRepair
import Testing

/// `tlm record --durability`.
@Suite struct DurabilityOptionTests {
    @Test(arguments: ["none", "chunk", "segment"])
    func eachLevelRecordsAVerifiedRecording(level: String) throws {
        let output = temporaryPath()
        let record = try tlm(
            "record", "--simulate", "--family", "diot", "--duration", "1s", "--chunk-age", "250ms",
            "--durability", level, "--output", output)
        #expect(record.status == 0, "\(record.errors)")
        let info = try RecordingInfo.load(from: output)
        #expect(info.segments.map(\.state) == ["closed"] && info.segments[0].chunkCount >= 3)
        #expect(try RecordingVerifier.verify(directory: output).isClean)
    }

    @Test func anUnknownLevelIsAClearError() throws {
        let result = try tlm("record", "--simulate", "--durability", "always")
        #expect(result.status != 0)
        #expect(result.errors.contains("--durability") && result.errors.contains("always"), "\(result.errors)")
        #expect(!result.errors.contains("Fatal error"))
    }

    @Test func helpExplainsTheLevels() throws {
        let help = try tlm("record", "--help")
        #expect(help.status == 0)
        // The help is wrapped to the terminal's width: compare with single spaces.
        let text = help.output.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for phrase in [
            "--durability <durability>", "none (never, for throwaway data)", "chunk (after each chunk:",
            "segment (when a segment closes)", "Default: chunk",
        ] {
            #expect(text.contains(phrase), "help lacks \(phrase)")
        }
    }
}
