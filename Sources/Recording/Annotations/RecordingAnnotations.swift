import Foundation
import GRDB
import MCAP

#if canImport(Glibc)
import Glibc
#endif

/// Attachments (a photo, a video, notes) and Metadata records added to a
/// finished recording or `.mcap` file after the fact, and read back by name,
/// as `mcap add` and `mcap get` do. In a recording directory they go into
/// the last segment, under the recording's lock (never into a recording
/// being written), and the index learns the segment's new size.
///
/// Names are unique: adding a name the recording already holds is refused,
/// so getting one by name is never ambiguous; the recorder's own Metadata
/// names (`session`, `device/…`) are reserved.
///
/// ```swift
/// try RecordingAnnotations.attach([try .init(source: "bike.jpg")], to: "ride")
/// try RecordingAnnotations.addMetadata(name: "notes", values: [("rider", "ana")], to: "ride")
/// let notes = try RecordingAnnotations.metadata(named: "notes", in: "ride")
/// ```
public enum RecordingAnnotations {
    /// A file to attach, with the Attachment record's fields.
    public struct NewAttachment: Sendable, Hashable {
        /// The file whose bytes are the attachment's data.
        public var source: String
        /// The attachment's name (default: the file's name).
        public var name: String
        /// Its media type (default: from the file's extension, ``mediaType(forFileName:)``).
        public var mediaType: String
        /// Its log time, ns since the epoch (default: now).
        public var logTime: UInt64
        /// Its creation time, ns since the epoch: the file's modification time.
        public var createTime: UInt64

        /// Describes `source` as an attachment, filling in what is not given.
        ///
        /// - Throws: ``RecordingError``: `.notFound` when `source` does not
        ///   exist; `.io` when it is not a regular file;
        ///   `.invalidConfiguration` for an empty name or media type.
        public init(
            source: String, name: String? = nil, mediaType: String? = nil, logTime: UInt64? = nil
        ) throws(RecordingError) {
            var status = stat()
            guard stat(source, &status) == 0 else {
                let code = errno
                throw RecordingError(
                    code == ENOENT ? .notFound : .io,
                    "\(source) "
                        + (code == ENOENT
                            ? "does not exist (expected a file to attach)" : RegularFile.reason(errno: code)))
            }
            if let kind = RegularFile.kind(status.st_mode) {
                throw RecordingError(.io, "\(source) is \(kind), not a regular file")
            }
            guard status.st_size <= RecordingAnnotations.maximumAttachmentSize else {
                throw RecordingError(
                    .invalidConfiguration,
                    "\(source) is \(status.st_size) bytes; an attachment is at most \(RecordingAnnotations.maximumAttachmentSize) "
                        + "(256 MiB: `verify` and `recover` read a segment whole)")
            }
            self.source = source
            self.name = name ?? (source as NSString).lastPathComponent
            self.mediaType = mediaType ?? RecordingAnnotations.mediaType(forFileName: source)
            guard !self.name.isEmpty, !self.mediaType.isEmpty else {
                throw RecordingError(.invalidConfiguration, "an attachment needs a name and a media type")
            }
            self.logTime = logTime ?? UInt64(Date().timeIntervalSince1970 * 1e9)
            self.createTime =
                UInt64(max(0, status.st_mtim.tv_sec)) * 1_000_000_000 + UInt64(max(0, status.st_mtim.tv_nsec))
        }
    }

    /// The largest attachment, in bytes (256 MiB, the default segment
    /// size): `verify` and `recover` read a segment whole, so a segment
    /// with its attachments stays within twice that.
    public static let maximumAttachmentSize = 256 << 20

    /// The media type of a file by its extension: common image, video,
    /// audio and text types; `application/octet-stream` otherwise.
    public static func mediaType(forFileName name: String) -> String {
        let types: [String: String] = [
            "jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "gif": "image/gif",
            "webp": "image/webp", "heic": "image/heic", "svg": "image/svg+xml", "mp4": "video/mp4",
            "mov": "video/quicktime", "webm": "video/webm", "mkv": "video/x-matroska", "wav": "audio/wav",
            "mp3": "audio/mpeg", "m4a": "audio/mp4", "txt": "text/plain", "md": "text/markdown",
            "csv": "text/csv", "json": "application/json", "yaml": "application/yaml", "yml": "application/yaml",
            "pdf": "application/pdf", "html": "text/html", "gpx": "application/gpx+xml",
        ]
        return types[(name as NSString).pathExtension.lowercased()] ?? "application/octet-stream"
    }

    /// Adds `attachments` to the recording (its last segment) or `.mcap`
    /// file at `path`, and returns the file that holds them (named as
    /// ``RecordingListing`` names files).
    ///
    /// - Throws: ``RecordingError``: `.invalidConfiguration` for a name
    ///   the recording already holds (or given twice); `.busy` while the
    ///   recording is being written; `.corrupt` when the file to amend has
    ///   no summary; `.notFound`, `.io` as for reading.
    @discardableResult
    public static func attach(_ attachments: [NewAttachment], to path: String) throws(RecordingError) -> String {
        try amend(path, purpose: "attach") { (listing: RecordingListing) throws(RecordingError) in
            var names = Set(listing.attachments.map(\.name))
            for attachment in attachments where !names.insert(attachment.name).inserted {
                throw RecordingError(
                    .invalidConfiguration,
                    "\(path) already holds an attachment named '\(attachment.name)' (names are unique; --name gives another)"
                )
            }
            return attachments.map {
                .attachment(
                    name: $0.name, mediaType: $0.mediaType, logTime: $0.logTime, createTime: $0.createTime,
                    source: $0.source)
            }
        }
    }

    /// Adds a Metadata record named `name` to the recording (its last
    /// segment) or `.mcap` file at `path`, and returns the file that holds it.
    ///
    /// - Throws: ``RecordingError``: `.invalidConfiguration` for an empty or
    ///   reserved name, a name the recording holds, no values, or an empty
    ///   or repeated key; otherwise as ``attach(_:to:)``.
    @discardableResult
    public static func addMetadata(
        name: String, values: [(key: String, value: String)], to path: String
    ) throws(RecordingError) -> String {
        guard !name.isEmpty else { throw RecordingError(.invalidConfiguration, "a metadata record needs a name") }
        guard !DeviceHandle.isDeviceMetadataName(name), name != "session" else {
            throw RecordingError(
                .invalidConfiguration, "'\(name)' is a name the recorder gives its own metadata; choose another")
        }
        guard !values.isEmpty else {
            throw RecordingError(.invalidConfiguration, "metadata '\(name)' needs at least one KEY=VALUE")
        }
        var keys = Set<String>()
        for (key, _) in values where key.isEmpty || !keys.insert(key).inserted {
            throw RecordingError(
                .invalidConfiguration, key.isEmpty ? "a metadata key is empty" : "the key '\(key)' is given twice")
        }
        return try amend(path, purpose: "add metadata") { (listing: RecordingListing) throws(RecordingError) in
            if listing.metadata.contains(where: { $0.name == name }) {
                throw RecordingError(
                    .invalidConfiguration,
                    "\(path) already holds metadata named '\(name)' (names are unique; `tlm get metadata` shows it)")
            }
            return [.metadata(name: name, values: values.map { MCAPRecord.KeyValue(key: $0.key, value: $0.value) })]
        }
    }

    /// The attachment named `name` in the recording or `.mcap` file at `path`.
    ///
    /// - Throws: ``RecordingError``: `.notFound` when none (or several,
    ///   written by another tool) has that name.
    public static func attachment(
        named name: String, in path: String
    ) throws(RecordingError)
        -> RecordingListing.Attachment
    {
        let listing = try RecordingListing(path: path)
        return try only(listing.attachments.filter { $0.name == name }, "attachment", name, path, "attachments")
    }

    /// The Metadata record named `name` in the recording or `.mcap` file at `path`.
    ///
    /// - Throws: ``RecordingError``: `.notFound` when none (or several) has that name.
    public static func metadata(
        named name: String, in path: String
    ) throws(RecordingError)
        -> RecordingListing.Metadata
    {
        let listing = try RecordingListing(path: path)
        return try only(listing.metadata.filter { $0.name == name }, "metadata", name, path, "metadata")
    }

    /// Writes the data of the attachment named `name` in the recording or
    /// `.mcap` file at `path` to `output` (a file written beside and renamed
    /// into place once its CRC holds), or to standard output when `nil`;
    /// streamed, whatever its size. Returns the attachment.
    ///
    /// - Throws: ``RecordingError``: as ``attachment(named:in:)``; `.corrupt`
    ///   when the record does not match its index or fails its CRC.
    @discardableResult
    public static func saveAttachment(
        named name: String, in path: String, to output: String?
    ) throws(RecordingError) -> RecordingListing.Attachment {
        let attachment = try attachment(named: name, in: path)
        let file = isDirectory(path) ? path + "/" + attachment.file : path
        let source: FileHandle
        do { source = try RegularFile.openForReading(file) } catch {
            throw RecordingError(error.code, "cannot read \(file): \(error.message)")
        }
        defer { try? source.close() }
        guard let output else {
            try AttachmentReader.copy(attachment, from: source, file: file, to: FileHandle.standardOutput)
            return attachment
        }
        let temporary = output + ".tlm-\(getpid())"
        guard FileManager.default.createFile(atPath: temporary, contents: nil),
            let handle = FileHandle(forWritingAtPath: temporary)
        else { throw RecordingError.errno("cannot create \(temporary)") }
        defer { unlink(temporary) }
        try AttachmentReader.copy(attachment, from: source, file: file, to: handle)
        do { try handle.close() } catch {
            throw RecordingError(.io, "cannot write \(output): \(error.localizedDescription)", cause: error)
        }
        guard rename(temporary, output) == 0 else { throw RecordingError.errno("cannot write \(output)") }
        return attachment
    }

    private static func only<Item>(
        _ found: [Item], _ what: String, _ name: String, _ path: String, _ kind: String
    ) throws(RecordingError) -> Item {
        guard found.count == 1 else {
            throw RecordingError(
                .notFound,
                found.isEmpty
                    ? "\(path) holds no \(what) named '\(name)' (`tlm list \(kind) \(path)` lists them)"
                    : "\(path) holds \(found.count) \(what) records named '\(name)' (`tlm list \(kind)` shows each)")
        }
        return found[0]
    }

    private static func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// Appends what `items` makes of the listing to the file to amend: a
    /// lone `.mcap` file, or a recording's last segment under its lock,
    /// the index then told the segment's new size.
    private static func amend(
        _ path: String, purpose: String, _ items: (RecordingListing) throws(RecordingError) -> [MCAPFileAppender.Item]
    ) throws(RecordingError) -> String {
        guard isDirectory(path) else {
            let parent = (path as NSString).deletingLastPathComponent
            if RecordingLayout.isSegmentName((path as NSString).lastPathComponent),
                FileManager.default.fileExists(atPath: (parent.isEmpty ? "." : parent) + "/index.sqlite")
            {
                throw RecordingError(
                    .invalidConfiguration,
                    "\(path) is a segment of the recording \(parent.isEmpty ? "." : parent): give the recording, "
                        + "so its index and lock are kept")
            }
            let listing = try RecordingListing(path: path)
            try MCAPFileAppender.append(try items(listing), to: path)
            return path
        }
        let segments = try RecordingLayout.segmentPaths(directory: path).paths
        guard let last = segments.last else { throw RecordingError(.notFound, "\(path) has no segments") }
        let lock = try RecordingLock(directory: path, purpose: purpose)
        defer { lock.release() }
        let listing = try RecordingListing(path: path)
        let size = try MCAPFileAppender.append(try items(listing), to: path + "/" + last)
        let indexPath = path + "/index.sqlite"
        if FileManager.default.fileExists(atPath: indexPath) {
            let index = try RecordingIndex(path: indexPath)
            try index.write { db in
                try db.execute(
                    sql: "UPDATE segments SET byte_size = ? WHERE path = ?", arguments: [Int64(size), last])
            }
            try index.close()
        }
        return last
    }
}
