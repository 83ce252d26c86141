import Foundation
import Recording
import RecordingRepair
import TestSupport
import Testing

/// A lone `.mcap` file read as a recording of one segment, as `tlm info`,
/// `query` and `verify` read one.
@Suite struct RecordingLocationTests {
    /// A closed recording of `count` messages on one stream; its segment's path.
    private func loneSegment(count: Int) throws -> String {
        let directory = makeTemporaryDirectory() + "/rec"
        let recorder = try Recorder(directory: directory, session: .init(name: "lone", source: "test"), startTime: 1)
        let stream = try recorder.addStream(
            StreamDescriptor(topic: "/t/d/a", kind: .typed, schema: ROS2BagTests.schema))
        for index in 0..<count {
            try recorder.write(stream, logTime: 10 + UInt64(index), payload: ROS2BagTests.value(Double(index)))
        }
        try recorder.close(at: 100)
        return directory + "/000001.mcap"
    }

    @Test func aLoneFileIsARecordingOfOneSegmentNamedByItsOwnPath() throws {
        let file = try loneSegment(count: 12)
        var temporary = ""
        do {
            let location = try RecordingLocation(file, indexed: true)
            temporary = location.directory
            #expect(location.isLoneFile)
            #expect(location.directory != file)
            let info = try location.info()
            #expect(info.directory == file)
            #expect(info.messageCount == 12)
            #expect(info.segments.map(\.path) == [file])
            #expect(location.userFacing("\(temporary)/000001.mcap: bad CRC") == "\(file): bad CRC")
            #expect(location.userFacing("\(temporary) is damaged") == "\(file) is damaged")
        }
        // Released: the temporary recording is gone, the file is untouched.
        #expect(!temporary.isEmpty && !FileManager.default.fileExists(atPath: temporary))
        #expect(FileManager.default.fileExists(atPath: file))
    }

    @Test func aDirectoryIsLeftToTheReaderAndAMissingPathIsNotFound() throws {
        let directory = makeTemporaryDirectory()
        let location = try RecordingLocation(directory, indexed: true)
        #expect(!location.isLoneFile && location.directory == directory)
        #expect(location.userFacing("x \(directory)") == "x \(directory)")
        let error = #expect(throws: RecordingError.self) {
            _ = try RecordingLocation(directory + "/nothing", indexed: true)
        }
        #expect(error?.code == .notFound)
        #expect(
            error?.message == "\(directory)/nothing does not exist (expected a recording directory or an .mcap file)")
    }

    @Test func aFileThatIsNotMCAPIsRefusedNotMadeUp() throws {
        let file = makeTemporaryDirectory() + "/x.mcap"
        try Data("not a recording\n".utf8).write(to: URL(fileURLWithPath: file))
        let error = #expect(throws: RecordingError.self) { _ = try RecordingLocation(file, indexed: true) }
        #expect(error?.code == .corrupt)
        #expect(error?.message.hasPrefix("\(file) cannot be read as a recording") == true)
    }
}
