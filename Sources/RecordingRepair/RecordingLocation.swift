import Foundation
import MCAP
public import Recording

/// The recording a command reads: a recording directory, or a lone `.mcap`
/// file (a segment, or any MCAP file `tlm export --format mcap` or another
/// tool wrote) read as a recording of one segment.
///
/// A lone file is linked (never copied or changed) into a temporary
/// recording directory as its one segment; for the verbs that need
/// `index.sqlite` (info, query) an index is built from it there, as
/// `tlm verify --repair` builds one (damaged records are cut from a copy in
/// the temporary directory, never from the file). The temporary directory
/// is removed when the location is released.
///
/// ```swift
/// let location = try RecordingLocation("ride.mcap", indexed: true)
/// let info = try location.info()   // info.directory == "ride.mcap"
/// ```
public final class RecordingLocation {
    /// The path as given.
    public let argument: String
    /// The recording directory to read.
    public let directory: String
    /// Whether the argument is a lone `.mcap` file.
    public var isLoneFile: Bool { temporary != nil }
    /// What building a lone file's index cut from its copy: damaged or
    /// unreadable records whose messages the index does not count (`nil` for
    /// a directory, or a lone file opened without an index).
    public private(set) var repairs: RecoveryReport?
    private let temporary: String?

    /// Opens `argument`.
    ///
    /// - Parameters:
    ///   - argument: A recording directory or an `.mcap` file.
    ///   - indexed: Build `index.sqlite` for a lone file.
    /// - Throws: `RecordingError`: `.notFound` when nothing is at `argument` (the same words
    ///   as `RecordingSource`'s), `.io` when the temporary recording cannot be made,
    ///   `.corrupt` when a lone file cannot be read as a recording.
    public init(_ argument: String, indexed: Bool) throws(RecordingError) {
        self.argument = argument
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory) else {
            throw RecordingError(
                .notFound, "\(argument) does not exist (expected a recording directory or an .mcap file)")
        }
        guard !isDirectory.boolValue else {
            directory = argument
            temporary = nil
            return
        }
        if indexed { try Self.requireMCAPMagic(argument) }
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
            throw RecordingError(.io, "cannot open \(argument): \(error.localizedDescription)")
        }
        guard indexed else { return }
        do {
            repairs = try RecordingRecovery.recover(directory: base, rebuildIndex: true)
        } catch {
            throw RecordingError(.corrupt, "\(argument) cannot be read as a recording: \(error.message)", cause: error)
        }
    }

    /// Refuses a lone file that does not start with the MCAP magic (a text
    /// file named `x.mcap`, `/etc/passwd`): recovering it would make up an
    /// empty recording.
    private static func requireMCAPMagic(_ path: String) throws(RecordingError) {
        let head: [UInt8]
        do {
            let handle = try RegularFile.openForReading(path)
            defer { try? handle.close() }
            head = [UInt8](try handle.read(upToCount: mcapMagic.count) ?? Data())
        } catch let error as RecordingError {
            throw RecordingError(error.code, "\(path) cannot be read as a recording: \(error.message)", cause: error)
        } catch {
            throw RecordingError(.io, "\(path) cannot be read as a recording: \(error.localizedDescription)")
        }
        guard head == mcapMagic else {
            throw RecordingError(
                .corrupt, "\(path) cannot be read as a recording: it is not an MCAP file (no MCAP magic at its start)")
        }
    }

    /// A note saying what of a lone file could not be read and is not
    /// counted — unreadable chunks (an unknown compression, a failed CRC),
    /// damaged or torn records — or `nil` when every byte was read.
    ///
    /// ```swift
    /// // "ride.mcap: 2 chunk(s) could not be read and are not counted (12,345 bytes; damaged chunk: …)"
    /// if let note = location.unreadableNote { print("note: " + note) }
    /// ```
    public var unreadableNote: String? {
        guard let repairs, repairs.discardedBytes > 0 else { return nil }
        let reason = repairs.segments.lazy.compactMap { $0.cuts.first?.reason }.first.map(userFacing) ?? "damaged"
        let what =
            repairs.unreadableChunks > 0
            ? "\(repairs.unreadableChunks) chunk(s) could not be read and are not counted"
            : "damaged bytes could not be read and are not counted"
        return "\(argument): \(what) (\(repairs.discardedBytes) bytes cut from the copy read; \(reason))"
    }

    deinit {
        if let temporary { try? FileManager.default.removeItem(atPath: temporary) }
    }

    /// The recording's info, with the lone file's path in place of the temporary directory's.
    ///
    /// - Parameter clocks: Also read the device clocks' latest models (`RecordingInfo.loadingClocks()`).
    /// - Throws: `RecordingError` when the recording or its index cannot be read.
    public func info(clocks: Bool = false) throws(RecordingError) -> RecordingInfo {
        var info = try RecordingInfo.load(from: directory)
        if clocks { info = try info.loadingClocks() }
        if isLoneFile {
            info.directory = argument
            for index in info.segments.indices { info.segments[index].path = argument }
        }
        return info
    }

    /// `text` with the temporary directory's paths replaced by the lone file's
    /// (in one pass each, so a lone file whose own path holds the segment's
    /// name is not replaced twice).
    public func userFacing(_ text: String) -> String {
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
