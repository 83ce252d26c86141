import CaptureFiles
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A capture path that is not a regular file is refused at once, never
/// waited on (issue 36 item 3: a FIFO blocked `import` in `open()`).
@Suite struct SpecialFileCaptureTests {
    @Test(.timeLimit(.minutes(1))) func aFIFOOrADirectoryIsRefusedNotWaitedOn() throws {
        let directory = makeTemporaryDirectory()
        let fifo = directory + "/capture.btsnoop"
        #expect(mkfifo(fifo, 0o600) == 0)
        for (path, kind) in [(fifo, "a FIFO"), (directory, "a directory")] {
            do {
                _ = try CaptureFileReader(path: path)
                Issue.record("\(kind) was opened")
            } catch {
                #expect(error.message == "\(path): cannot open the capture file: it is \(kind), not a regular file")
            }
        }
    }
}
