import Foundation
import Recording
import TestSupport
import Testing

/// Issue 36 item 9: a `recover` that fails leaves the index as it found it.
/// A merge of the recording with itself, written into the recording as a
/// second segment, is a foreign segment recover cannot make consistent;
/// before, the failed recover still listed it in the index and `query`
/// answered with another stream's payloads.
@Suite struct FailedRecoverTests {
    @Test func aFailedRecoverLeavesTheIndexAsItWas() throws {
        let output = temporaryPath()
        let record = try tlm("record", "--simulate", "--duration", "2s", "--seed", "3", "--output", output)
        #expect(record.status == 0, "\(record.errors)")
        let before = try RecordingReader(directory: output)
        let messages = try before.messages(topics: before.topics).map { [$0.logTime, UInt64($0.payload.count)] }
        let indexBytes = try Data(contentsOf: URL(fileURLWithPath: output + "/index.sqlite"))
        let merge = try tlm("merge", output, output, "--output", output + "/000002.mcap")
        #expect(merge.status == 0, "\(merge.errors)")
        let recover = try tlm("recover", output)
        #expect(recover.status != 0)
        #expect(recover.errors.contains("its index is left as it was"), "\(recover.errors)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: output + "/index.sqlite")) == indexBytes)
        #expect(!FileManager.default.fileExists(atPath: output + "/index.sqlite.recover"))
        // Readers refuse the recording while the foreign segment is in it, and read it as it was once it is gone.
        let cat = try tlm("cat", output)
        #expect(cat.status == 1 && cat.errors.contains("000002.mcap is a closed segment the index does not list"))
        try FileManager.default.removeItem(atPath: output + "/000002.mcap")
        let after = try RecordingReader(directory: output)
        #expect(try after.messages(topics: after.topics).map { [$0.logTime, UInt64($0.payload.count)] } == messages)
    }
}
