import Foundation
public import Recording

/// The directory a flight recorder writes into: one recording directory per
/// snapshot (`snapshot-0001-20261203T131502Z`, numbered on from what is
/// there, named by the first trigger's UTC time) and, while it runs, the
/// ring recorder's spool `.ring` (the session's devices and streams, and the
/// lock). A folder left by a recorder that was killed is taken over: its
/// snapshots stay (a partial one for `tlm recover`), its spool (which held no
/// data) is replaced and a snapshot directory it left empty is removed.
public struct SnapshotFolder: Sendable {
    /// The folder's path.
    public let path: String

    /// The folder at `path`.
    public init(path: String) { self.path = path }

    /// The ring recorder's spool directory.
    public var spool: String { path + "/.ring" }

    /// The prefix of every snapshot directory's name.
    public static let prefix = "snapshot-"

    /// Creates the folder, or checks that an existing one holds only
    /// snapshots, and clears a stale spool.
    ///
    /// - Throws: `RecordingError` if the path is empty, a file, holds
    ///   anything but snapshots, or another flight recorder is running into it.
    public func prepare() throws(RecordingError) {
        guard !path.isEmpty else {
            throw RecordingError(.invalidConfiguration, "the snapshot folder is empty text; name a directory")
        }
        var isDirectory: ObjCBool = false
        let files = FileManager.default
        if files.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw RecordingError(.invalidConfiguration, "\(path) is a file, not a folder for snapshots")
            }
            let entries = (try? files.contentsOfDirectory(atPath: path)) ?? []
            if let other = entries.first(where: { !$0.hasPrefix(Self.prefix) && $0 != ".ring" }) {
                throw RecordingError(
                    .invalidConfiguration,
                    "\(path) holds \(other), which is not a snapshot: a snapshot folder holds only snapshots; "
                        + "choose a new or empty directory")
            }
            // A snapshot directory left empty by a killed recorder holds nothing: it goes.
            for entry in entries where entry.hasPrefix(Self.prefix) {
                let path = path + "/" + entry
                if (try? files.contentsOfDirectory(atPath: path))?.isEmpty == true {
                    try? files.removeItem(atPath: path)
                }
            }
            if entries.contains(".ring") {
                if let pid = RecordingLock.holder(of: spool) {
                    throw RecordingError(
                        .invalidConfiguration, "a flight recorder (pid \(pid)) is recording into \(path)")
                }
                do {
                    try files.removeItem(atPath: spool)
                } catch {
                    throw RecordingError(.io, "cannot remove the stale spool \(spool): \(error.localizedDescription)")
                }
            }
        } else {
            do {
                try files.createDirectory(atPath: path, withIntermediateDirectories: true)
            } catch {
                throw RecordingError(.io, "cannot create \(path): \(error.localizedDescription)")
            }
        }
    }

    /// The snapshot directories there now, sorted by name.
    public func snapshots() -> [String] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return entries.filter { $0.hasPrefix(Self.prefix) }.sorted().map { path + "/" + $0 }
    }

    /// A new snapshot directory's path: the next number, and the UTC time of `time`.
    public func nextDirectory(at time: UInt64) -> String {
        let numbers = snapshots().compactMap { entry -> Int? in
            let name = entry.split(separator: "/").last.map(String.init) ?? ""
            return Int(name.dropFirst(Self.prefix.count).prefix { $0.isNumber })
        }
        let number = (numbers.max() ?? 0) + 1
        var seconds = time_t(time / 1_000_000_000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let stamp = String(
            format: "%04d%02d%02dT%02d%02d%02dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
            parts.tm_hour, parts.tm_min, parts.tm_sec)
        return path + "/" + Self.prefix + String(format: "%04d", number) + "-" + stamp
    }

    /// Removes the spool (the recorder is closed).
    public func removeSpool() {
        try? FileManager.default.removeItem(atPath: spool)
    }
}
