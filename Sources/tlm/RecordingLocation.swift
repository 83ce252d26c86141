import Foundation
import Recording
import RecordingRepair

/// The recording a verb reads: a recording directory, or a lone `.mcap` file
/// (a segment, or any MCAP file `tlm export --format mcap` or another tool
/// wrote) read as a recording of one segment.
///
/// A lone file is linked (never copied or changed) into a temporary
/// recording directory as its one segment; for the verbs that need
/// `index.sqlite` (info, query) an index is built from it there, as
/// `tlm verify --repair` builds one (damaged records are cut from a copy in
/// the temporary directory, never from the file). The temporary directory
/// is removed when the location is released.
final class RecordingLocation {
    /// The path as given.
    let argument: String
    /// The recording directory to read.
    let directory: String
    /// Whether the argument is a lone `.mcap` file.
    var isLoneFile: Bool { temporary != nil }
    private let temporary: String?

    /// Opens `argument`.
    ///
    /// - Parameter indexed: Build `index.sqlite` for a lone file.
    /// - Throws: ``CLIError`` when a lone file cannot be read as a recording (a missing path is
    ///   taken for a directory, for the reading verb to report).
    init(_ argument: String, indexed: Bool) throws {
        self.argument = argument
        var isDirectory: ObjCBool = false
        // A missing path is left to the library, which says it is not a recording.
        let exists = FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory)
        guard exists, !isDirectory.boolValue else {
            directory = argument
            temporary = nil
            return
        }
        let base = NSTemporaryDirectory() + "tlm-mcap-\(UUID().uuidString.prefix(8))"
        temporary = base
        directory = base
        let absolute =
            argument.hasPrefix("/") ? argument : FileManager.default.currentDirectoryPath + "/" + argument
        do {
            try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(
                atPath: base + "/" + Self.segment, withDestinationPath: absolute)
        } catch {
            throw CLIError("cannot open \(argument): \(error.localizedDescription)")
        }
        guard indexed else { return }
        do {
            _ = try RecordingRecovery.recover(directory: base, rebuildIndex: true)
        } catch {
            throw CLIError("\(argument) cannot be read as a recording: \(error.message)")
        }
    }

    deinit {
        if let temporary { try? FileManager.default.removeItem(atPath: temporary) }
    }

    /// The recording's info, with the lone file's path in place of the temporary directory's.
    func info() throws -> RecordingInfo {
        var info: RecordingInfo
        do { info = try RecordingInfo.load(from: directory) } catch { throw CLIError(error.message) }
        if isLoneFile {
            info.directory = argument
            for index in info.segments.indices { info.segments[index].path = argument }
        }
        return info
    }

    /// `text` with the temporary directory's paths replaced by the lone file's
    /// (in one pass each, so a lone file whose own path holds the segment's
    /// name is not replaced twice).
    func userFacing(_ text: String) -> String {
        guard let temporary else { return text }
        let marker = "\u{0}"
        return text.replacingOccurrences(of: temporary + "/" + Self.segment, with: marker)
            .replacingOccurrences(of: Self.segment, with: marker)
            .replacingOccurrences(of: temporary, with: argument)
            .replacingOccurrences(of: marker, with: argument)
    }

    /// The lone file's segment path in the temporary recording (the layout every recording is written in).
    private static let segment = RecordingLayout.root.relativePath(ofSegment: RecordingLayout.segmentName(sequence: 1))
}
