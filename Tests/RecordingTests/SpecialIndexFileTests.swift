import Foundation
import RecordingRepair
import TestSupport
import Testing

@testable import Recording

#if canImport(Glibc)
import Glibc
#endif

/// An `index.sqlite` (or its WAL) that is a FIFO is refused at once by every
/// reader, never waited on (issue 36 item 4: `info`, `cat`, `export` hung).
@Suite struct SpecialIndexFileTests {
    @Test(.timeLimit(.minutes(1)), arguments: ["index.sqlite", "index.sqlite-wal"])
    func aFIFOInPlaceOfTheIndexIsRefused(_ name: String) throws {
        let (directory, _) = try IndexValidationTests.recording()
        let path = directory + "/" + name
        try? FileManager.default.removeItem(atPath: path)
        #expect(mkfifo(path, 0o600) == 0)
        let expected = "cannot open index \(directory)/index.sqlite: \(path) is a FIFO, not a regular file"
        let info = #expect(throws: RecordingError.self) { _ = try RecordingInfo.load(from: directory) }
        #expect(info?.message == expected)
        let read = #expect(throws: RecordingError.self) { _ = try RecordingReader(directory: directory) }
        #expect(read?.message == expected)
    }
}
