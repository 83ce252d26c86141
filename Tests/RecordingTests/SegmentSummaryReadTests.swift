import Foundation
import MCAP
import TestSupport
import Testing

@testable import Recording

/// A segment's summary read for a few opcodes (what an export's context
/// needs: schemas, channels, metadata indexes) gives exactly those records
/// of the whole summary, and a torn summary is the same error either way.
@Suite struct SegmentSummaryReadTests {
    static let wanted: Set<UInt8> = [
        MCAPOpcode.schema.rawValue, MCAPOpcode.channel.rawValue, MCAPOpcode.metadataIndex.rawValue,
    ]

    @Test func onlyTheWantedRecordsInSummaryOrder() throws {
        let reader = try RecordingReader(directory: ParquetExportTests.recording)
        for relative in try reader.segmentPaths() {
            let path = reader.directory + "/" + relative
            let all = try RecordingReader.summaryRecords(of: path)
            let some = try RecordingReader.summaryRecords(of: path, only: Self.wanted)
            #expect(some == all.filter { Self.wanted.contains($0.opcode) })
            #expect(some.contains { if case .channel = $0 { true } else { false } })
            // The chunk indexes are the bulk of the summary, and none is parsed.
            #expect(all.contains { if case .chunkIndex = $0 { true } else { false } })
            #expect(!some.contains { if case .chunkIndex = $0 { true } else { false } })
        }
    }

    @Test func aTornSummaryRecordIsCorruptEitherWay() throws {
        let reader = try RecordingReader(directory: ParquetExportTests.recording)
        let source = reader.directory + "/" + (try #require(try reader.segmentPaths().first))
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: source)))
        // The Footer's summary_start, then the first summary record's length made to overrun the file.
        let footer = bytes.count - 37
        let start = Int(bytes[(footer + 9)..<(footer + 17)].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
        #expect(start > 8 && start < footer)
        for index in 0..<8 { bytes[start + 1 + index] = index == 6 ? 0x10 : 0 }
        let path = makeTemporaryDirectory("tornsummary") + "/torn.mcap"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let whole = #expect(throws: RecordingError.self) { try RecordingReader.summaryRecords(of: path) }
        let some = #expect(throws: RecordingError.self) {
            try RecordingReader.summaryRecords(of: path, only: Self.wanted)
        }
        #expect(whole?.code == .corrupt && some?.code == .corrupt)
        #expect(some?.message == "\(path) summary: record at 0 overruns its bytes")
        #expect(whole?.message == some?.message)
    }
}
