import Foundation
import Recording
import TestSupport
import Testing

/// `tlm attach`, `tlm add metadata` and `tlm get attachment|metadata`: what
/// is added reads back byte for byte, through tlm and through the Python
/// `mcap` reader, the recording still verifies, and every refusal is an
/// error that names its reason.
@Suite struct AnnotationCommandsTests {
    /// A recording of two seconds and its segment files.
    static func recording(_ label: String = #function) throws -> (path: String, segments: [String]) {
        let path = temporaryPath(label)
        let record = try tlm("record", "--simulate", "--duration", "2s", "--seed", "3", "-o", path)
        #expect(record.status == 0, "\(record.errors)")
        let names = try FileManager.default.contentsOfDirectory(atPath: path).filter { $0.hasSuffix(".mcap") }.sorted()
        return (path, names.map { path + "/" + $0 })
    }

    /// `count` bytes that are not the same twice (crossing the 1 MiB pieces files are copied in).
    static func bytes(_ count: Int, seed: UInt64) -> Data {
        var generator = SplitMix64(seed: seed)
        return Data((0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
    }

    static func sha256(_ path: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.arguments = [path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return String(output.prefix(64))
    }

    @Test func attachmentsReadBackThroughTlmAndPythonAndTheRecordingStillVerifies() throws {
        let (path, segments) = try Self.recording()
        let before = try RecordingInfo.load(from: path)
        let photo = path + "-bike.JPG"
        let notes = path + "-notes.md"
        try Self.bytes(3 << 20 | 12_345, seed: 7).write(to: URL(fileURLWithPath: photo))
        try Data("# Ride\nlight rain\n".utf8).write(to: URL(fileURLWithPath: notes))

        let attach = try tlm("attach", path, photo, notes)
        #expect(attach.status == 0, "\(attach.errors)")
        #expect(attach.output.contains("Attached " + (photo as NSString).lastPathComponent + " (image/jpeg)"))

        let list = try tlm("list", "attachments", path, "--format", "json")
        #expect(list.status == 0, "\(list.errors)")
        let listed = try #require(
            (try JSONSerialization.jsonObject(with: Data(list.output.utf8)) as? [String: Any])?["attachments"]
                as? [[String: Any]])
        #expect(listed.map { $0["name"] as? String } == [photo, notes].map { ($0 as NSString).lastPathComponent })
        #expect(listed.map { $0["media_type"] as? String } == ["image/jpeg", "text/markdown"])
        #expect(listed.map { $0["data_size"] as? Int } == [3 << 20 | 12_345, 18])
        // Into the last segment.
        #expect(listed.allSatisfy { $0["file"] as? String == (segments.last! as NSString).lastPathComponent })

        let copy = path + "-copy.jpg"
        let get = try tlm("get", "attachment", path, (photo as NSString).lastPathComponent, "-o", copy)
        #expect(get.status == 0, "\(get.errors)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: copy)) == Data(contentsOf: URL(fileURLWithPath: photo)))

        // The recording is whole: the index agrees with the segments, every message is there.
        let verify = try tlm("verify", path)
        #expect(verify.status == 0, "\(verify.output) \(verify.errors)")
        let after = try RecordingInfo.load(from: path)
        #expect(after.messageCount == before.messageCount)
        #expect(after.byteSize > before.byteSize + (3 << 20))

        // The Python mcap reader (CRCs on, data section and attachments included) agrees.
        let python = try readWithPython(segments)
        let read = try #require(python["segments"] as? [[String: Any]])
        let last = try #require(read.last)
        let attachments = try #require(last["attachments"] as? [[String: Any]])
        #expect(attachments.map { $0["sha256"] as? String } == [try Self.sha256(photo), try Self.sha256(notes)])
        #expect(attachments.map { $0["media_type"] as? String } == ["image/jpeg", "text/markdown"])
        #expect((last["statistics"] as? [String: Any])?["attachment_count"] as? Int == 2)
        let messages = read.reduce(0) { $0 + (($1["messages"] as? [Any])?.count ?? 0) }
        #expect(UInt64(messages) == before.messageCount)
    }

    @Test func metadataIsAddedOnceByNameAndPrintsBack() throws {
        let (path, segments) = try Self.recording()
        let add = try tlm("add", "metadata", path, "notes", "rider=ana", "weather=light rain", "formula=a=b")
        #expect(add.status == 0, "\(add.errors)")
        let get = try tlm("get", "metadata", path, "notes")
        #expect(get.status == 0, "\(get.errors)")
        #expect(get.output == "formula=a=b\nrider=ana\nweather=light rain\n")
        let json = try tlm("get", "metadata", path, "notes", "--format", "json")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        #expect(object["command"] as? String == "get")
        #expect((object["values"] as? [String: String])?["weather"] == "light rain")
        // The recorder's own record reads the same way.
        let session = try tlm("get", "metadata", path, "session")
        #expect(session.status == 0 && session.output.contains("="), "\(session.errors)")

        let python = try readWithPython(segments)
        let metadata = (python["segments"] as? [[String: Any]])?.last?["metadata"] as? [[String: Any]] ?? []
        let notes = metadata.first { $0["name"] as? String == "notes" }
        #expect((notes?["values"] as? [String: String]) == ["rider": "ana", "weather": "light rain", "formula": "a=b"])
        #expect(try tlm("verify", path).status == 0)

        // Refusals: a name held already, a reserved name, a repeated key, no KEY=VALUE.
        let again = try tlm("add", "metadata", path, "notes", "rider=bo")
        #expect(again.status == 1 && again.errors.contains("already holds metadata named 'notes'"), "\(again.errors)")
        let reserved = try tlm("add", "metadata", path, "device/diot/x", "a=b")
        #expect(reserved.status == 1 && reserved.errors.contains("recorder gives its own"), "\(reserved.errors)")
        let twice = try tlm("add", "metadata", path, "other", "a=1", "a=2")
        #expect(twice.status == 1 && twice.errors.contains("the key 'a' is given twice"), "\(twice.errors)")
        let bare = try tlm("add", "metadata", path, "other", "rider")
        #expect(bare.status == 1 && bare.errors.contains("is not KEY=VALUE"), "\(bare.errors)")
        let missing = try tlm("get", "metadata", path, "nothing")
        #expect(
            missing.status == 1 && missing.errors.contains("holds no metadata named 'nothing'"), "\(missing.errors)")
    }

    @Test func aLoneMCAPFileTakesAttachmentsAsARecordingDoes() throws {
        let (path, _) = try Self.recording()
        let file = path + "-export.mcap"
        #expect(try tlm("export", path, "--format", "mcap", "-o", file).status == 0)
        let notes = path + "-notes.txt"
        try Data("lap 3 was wet".utf8).write(to: URL(fileURLWithPath: notes))
        let attach = try tlm("attach", file, notes, "--name", "lap", "--media-type", "text/x-lap", "--log-time", "1000")
        #expect(attach.status == 0, "\(attach.errors)")
        let copy = path + "-lap.txt"
        #expect(try tlm("get", "attachment", file, "lap", "-o", copy).status == 0)
        #expect(try String(contentsOfFile: copy, encoding: .utf8) == "lap 3 was wet")
        let read = try #require((try readWithPython([file])["segments"] as? [[String: Any]])?.first)
        let attachment = try #require((read["attachments"] as? [[String: Any]])?.first)
        #expect(attachment["name"] as? String == "lap")
        #expect(attachment["media_type"] as? String == "text/x-lap")
        #expect(attachment["log_time"] as? Int == 1000)
        #expect(try tlm("verify", file).status == 0)
    }

    @Test func refusalsNameTheirReasonAndChangeNothing() throws {
        let (path, segments) = try Self.recording()
        let notes = path + "-notes.txt"
        try Data("x".utf8).write(to: URL(fileURLWithPath: notes))
        #expect(try tlm("attach", path, notes).status == 0)
        let size = try FileManager.default.attributesOfItem(atPath: segments.last!)[.size] as? Int

        let twice = try tlm("attach", path, notes)
        #expect(twice.status == 1 && twice.errors.contains("already holds an attachment named"), "\(twice.errors)")
        let absent = try tlm("attach", path, path + "-nothing.jpg")
        #expect(absent.status == 1 && absent.errors.contains("does not exist"), "\(absent.errors)")
        let directory = try tlm("attach", path, path)
        #expect(directory.status == 1 && directory.errors.contains("not a regular file"), "\(directory.errors)")
        // Larger than a segment: refused before anything is read (a sparse file, no disk used).
        let huge = path + "-huge.bin"
        _ = FileManager.default.createFile(atPath: huge, contents: nil)
        let hugeHandle = try FileHandle(forWritingTo: URL(fileURLWithPath: huge))
        try hugeHandle.truncate(atOffset: UInt64(256 << 20) + 1)
        try hugeHandle.close()
        let tooLarge = try tlm("attach", path, huge)
        #expect(tooLarge.status == 1 && tooLarge.errors.contains("an attachment is at most"), "\(tooLarge.errors)")
        let relative = try tlm("attach", path, notes, "--name", "y", "--log-time", "+2s")
        #expect(relative.status == 1 && relative.errors.contains("--log-time takes"), "\(relative.errors)")
        let unknown = try tlm("get", "attachment", path, "nothing", "-o", path + "-out")
        #expect(unknown.status == 1 && unknown.errors.contains("holds no attachment named 'nothing'"))
        #expect(!FileManager.default.fileExists(atPath: path + "-out"))

        let segment = try tlm("attach", segments.last!, notes, "--name", "s")
        #expect(segment.status == 1 && segment.errors.contains("is a segment of the recording"), "\(segment.errors)")

        // A recording being written is never amended.
        let lock = try RecordingLock(directory: path, purpose: "a test")
        let busy = try tlm("attach", path, notes, "--name", "z")
        lock.release()
        #expect(busy.status == 1 && busy.errors.contains("\(getpid())"), "\(busy.errors)")
        #expect(try FileManager.default.attributesOfItem(atPath: segments.last!)[.size] as? Int == size)

        // A file that is not MCAP, and a segment a crash left without its summary.
        let text = path + "-text.mcap"
        try Data("not an mcap file".utf8).write(to: URL(fileURLWithPath: text))
        let notMCAP = try tlm("attach", text, notes)
        #expect(notMCAP.status == 1 && notMCAP.errors.contains("not an MCAP file"), "\(notMCAP.errors)")
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: segments.last!))
        try handle.truncate(atOffset: UInt64(size! - 100))
        try handle.close()
        let cut = try tlm("attach", path, notes, "--name", "w")
        #expect(cut.status == 1 && cut.errors.contains("tlm recover"), "\(cut.errors)")
        // Recovery closes the segment again and keeps its attachment.
        let recover = try tlm("recover", path)
        #expect(recover.status == 0 || recover.status == 3, "\(recover.output) \(recover.errors)")
        let back = try tlm("get", "attachment", path, (notes as NSString).lastPathComponent, "-o", path + "-back")
        #expect(back.status == 0, "\(back.errors)")
        #expect(try String(contentsOfFile: path + "-back", encoding: .utf8) == "x")
        #expect(try tlm("verify", path).status == 0)
    }

    @Test func aDamagedAttachmentIsAnErrorAndNoOutputFile() throws {
        let (path, segments) = try Self.recording()
        let photo = path + "-photo.png"
        try Self.bytes(200_000, seed: 9).write(to: URL(fileURLWithPath: photo))
        #expect(try tlm("attach", path, photo).status == 0)
        let listed = try RecordingListing(path: path).attachments
        let attachment = try #require(listed.first)
        // One byte of the data, in the middle, flipped.
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: segments.last!))
        let at = attachment.offset + attachment.dataSize / 2 + 60
        try handle.seek(toOffset: at)
        let byte = try #require(try handle.read(upToCount: 1)?.first)
        try handle.seek(toOffset: at)
        try handle.write(contentsOf: [byte ^ 0xFF])
        try handle.close()
        let output = path + "-out.png"
        let get = try tlm("get", "attachment", path, (photo as NSString).lastPathComponent, "-o", output)
        #expect(get.status == 1 && get.errors.contains("fails its CRC"), "\(get.errors)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}
