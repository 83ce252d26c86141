import Foundation
import GRDB
import MCAP
import ROS2
import TestSupport
import Testing

@testable import Recording

/// `RecordingError.cause`: the lower-level error a recording error wraps.
@Suite struct RecordingErrorCauseTests {
    @Test func equalityAndHashingIgnoreTheCause() {
        let plain = RecordingError(.io, "disk full")
        let caused = RecordingError(.io, "disk full", cause: POSIXError(.ENOSPC))
        #expect(plain == caused)
        #expect(plain.hashValue == caused.hashValue)
        #expect(plain.cause == nil)
        #expect((caused.cause as? POSIXError)?.code == .ENOSPC)
        #expect(RecordingError(.corrupt, "disk full") != caused)
    }

    @Test func aFailedSystemCallCarriesErrno() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/segment.mcap"
        _ = try SegmentFile(creating: path)
        // O_EXCL: creating it again fails with EEXIST.
        let error = #expect(throws: RecordingError.self) { _ = try SegmentFile(creating: path) }
        #expect(error?.code == .io)
        #expect((error?.cause as? POSIXError)?.code == .EEXIST)
    }

    @Test func aTruncatedMCAPFieldCarriesTheCursorError() {
        // A Header whose profile claims 5 bytes and has 1.
        let error = #expect(throws: MCAPError.self) {
            _ = try MCAPRecord.parse(opcode: MCAPOpcode.header.rawValue, body: [0x05, 0, 0, 0, 0x61][...])
        }
        #expect(error?.code == .corrupt)
        #expect(error?.message == "header record is truncated at field profile")
        #expect(error?.cause.map { "\($0)" } == "5 bytes needed at offset 4, 1 left")
    }

    @Test func aRecordOverrunningItsChunkCarriesTheCursorError() {
        // Opcode, then a u64 length of 2^63 in 11 bytes.
        let bytes: [UInt8] = [0x05, 0, 0, 0, 0, 0, 0, 0, 0x80, 0xAA, 0xBB]
        let error = #expect(throws: MCAPError.self) { _ = try MCAPRecord.parseAll(bytes[...], context: "chunk") }
        #expect(error?.message == "chunk: record at 0 overruns its bytes")
        #expect(error?.cause.map { "\($0)" } == "9223372036854775808 bytes needed at offset 9, 2 left")
    }

    @Test func aZstdFailureCarriesZstdsError() {
        let garbage: [UInt8] = Array(repeating: 0x42, count: 32)
        let error = #expect(throws: MCAPError.self) {
            _ = try garbage.withUnsafeBytes { raw throws(MCAPError) in
                try ZstdDecompressor.decompress(raw, expectedSize: 64)
            }
        }
        #expect(error?.code == .corrupt)
        let cause = error?.cause as? CompressionLibraryError
        #expect(cause != nil)
        #expect(cause.map { error?.message == $0.description } == true)
    }

    @Test func aShortCDRPayloadCarriesTheCursorError() throws {
        let definition = try ROS2MessageDefinition(parsing: "uint32 a\nuint64 b")
        // Header, a = 7 (body offset 0…3), then 3 bytes: b is aligned to 8 from
        // the end of the header, so the 4 padding bytes before it already overrun.
        let payload: [UInt8] = [0x00, 0x01, 0x00, 0x00, 7, 0, 0, 0, 1, 2, 3]
        let error = #expect(throws: CDRError.self) { _ = try definition.decode(payload) }
        #expect(error?.message == "the payload ends before field b")
        #expect(error?.cause.map { "\($0)" } == "4 bytes needed at offset 8, 3 left")
    }

    /// A failure below the recording (MCAP bytes, a CDR payload) reaches
    /// readers as a recording error of the same kind, words and cause; a
    /// writer's output that failed is that output's own error.
    @Test func lowerLayerErrorsKeepTheirKindWordsAndCause() {
        let cursor = POSIXError(.EIO)
        let corrupt = RecordingError(MCAPError(.corrupt, "bad CRC", cause: cursor))
        #expect(corrupt == RecordingError(.corrupt, "bad CRC"))
        #expect((corrupt.cause as? POSIXError)?.code == .EIO)
        #expect(RecordingError(MCAPError(.unsupported, "lz4")).code == .unsupported)
        #expect(RecordingError(MCAPError(.compression, "zstd")).code == .compression)
        #expect(RecordingError(MCAPError(.invalidConfiguration, "level")).code == .invalidConfiguration)
        let full = RecordingError(.io, "disk full")
        #expect(RecordingError(MCAPError(.output, "disk full", cause: full)) == full)
        #expect(RecordingError(MCAPError(.output, "pipe", cause: cursor)).code == .io)
        #expect(RecordingError(CDRError(.unsupported, "nested")).code == .unsupported)
        #expect(RecordingError(CDRError(.corrupt, "short")) == RecordingError(.corrupt, "short"))
    }

    @Test func anIndexThatIsNotSQLiteCarriesGRDBsError() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Data(repeating: 0x5A, count: 4096).write(to: URL(fileURLWithPath: directory + "/index.sqlite"))
        let error = #expect(throws: RecordingError.self) { _ = try RecordingReader(directory: directory) }
        #expect(error?.code == .index)
        #expect(error?.cause is DatabaseError)
    }
}
