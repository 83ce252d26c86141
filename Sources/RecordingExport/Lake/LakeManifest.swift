import Foundation
import Recording

/// What a lake holds, as `LAKE/_tlm/manifest.json` records it: its
/// partition keys, its tables (each one schema), and every recording added,
/// with its content digest and its files (each with its rows, bytes and
/// hash). ``ParquetLake`` rewrites it atomically (a new file, synced, then
/// renamed over the old one) after a recording's files are in place.
///
/// ```swift
/// let manifest = try ParquetLake(directory: "fleet").manifest()
/// for (table, rows) in manifest.rowsPerTable { print(table, rows) }
/// ```
public struct LakeManifest: Codable, Sendable, Hashable {
    /// A table: a directory of the lake holding the rows of one schema.
    public struct Table: Codable, Sendable, Hashable {
        /// The directory's name (the schema's name made path-safe).
        public var name: String
        /// The schema's name, as the recordings give it.
        public var schema: String
        /// The schema's encoding (`ros2msg`).
        public var schemaEncoding: String
        /// The digest of the schema's text (a 64-bit hash, 16 hex digits): every
        /// recording's rows of the table share it.
        public var schemaDigest: String
        /// The table's columns, in order (partition keys not included).
        public var columns: [String]
    }

    /// One file of the lake.
    public struct File: Codable, Sendable, Hashable {
        /// Its path relative to the lake (`<table>/<key>=<value>/…/<recording>.parquet`).
        public var path: String
        /// Its table.
        public var table: String
        /// Its rows: the recording's rows in it (a compacted file holds several recordings' rows).
        public var rows: Int64
        /// Its size in bytes.
        public var bytes: Int64
        /// The hash of its bytes (a 64-bit hash, 16 hex digits).
        public var digest: String
    }

    /// A recording added to the lake.
    public struct Recording: Codable, Sendable, Hashable {
        /// Its identifier: the recording directory's (or MCAP file's) name, path-safe; unique in the lake.
        public var id: String
        /// The content digest of its messages (a 64-bit hash, 16 hex digits).
        public var digest: String
        /// The messages added (every message of every stream).
        public var messages: Int64
        /// When it was added (UTC, ISO 8601).
        public var added: String
        /// Its files.
        public var files: [File]
    }

    /// The manifest's format version.
    public var format = 1
    /// The Hive partition keys, outermost first (every recording of the lake is partitioned by them).
    public var partitionKeys: [String]
    /// The tables, by name.
    public var tables: [Table]
    /// The recordings, in the order they were added.
    public var recordings: [Recording]

    /// Rows per table, over every recording.
    public var rowsPerTable: [String: Int64] {
        var rows: [String: Int64] = [:]
        for table in tables { rows[table.name] = 0 }
        for recording in recordings {
            for file in recording.files { rows[file.table, default: 0] += file.rows }
        }
        return rows
    }

    /// Files per table, over every recording (a compacted file, which several recordings share, once).
    public var filesPerTable: [String: Int] {
        var files: [String: Int] = [:]
        for table in tables { files[table.name] = 0 }
        var seen = Set<String>()
        for recording in recordings {
            for file in recording.files where seen.insert(file.path).inserted { files[file.table, default: 0] += 1 }
        }
        return files
    }

    /// The manifest's path in a lake.
    public static func path(in lake: String) -> String { lake + "/_tlm/manifest.json" }

    /// Reads a lake's manifest; `nil` when the lake has none.
    ///
    /// - Throws: `RecordingError` (`.corrupt`) for a manifest that does not decode, `.io` when it cannot be read.
    static func read(lake: String) throws(RecordingError) -> LakeManifest? {
        let path = path(in: lake)
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw RecordingError(.io, "cannot read \(path): \(error.localizedDescription)")
        }
        do {
            let manifest = try JSONDecoder().decode(LakeManifest.self, from: data)
            guard manifest.format == 1 else {
                throw RecordingError(.corrupt, "\(path) has format \(manifest.format); this tlm reads format 1")
            }
            return manifest
        } catch let error as RecordingError {
            throw error
        } catch {
            throw RecordingError(.corrupt, "\(path) is not a lake manifest: \(error)")
        }
    }

    /// Writes the manifest atomically: a temporary file in `_tlm`, synced, renamed over the old one, the directory synced.
    ///
    /// - Throws: `RecordingError` (`.io`).
    func write(lake: String) throws(RecordingError) {
        let temporary = try writeTemporary(lake: lake)
        try LakeFiles.sync(temporary)
        try LakeFiles.rename(temporary, to: Self.path(in: lake))
        try LakeFiles.syncDirectory(lake + "/_tlm")
    }

    /// Writes the manifest to a temporary file in `_tlm`, not synced yet, and returns its path:
    /// sync it, then rename it over the lake's.
    ///
    /// - Throws: `RecordingError` (`.io`).
    func writeTemporary(lake: String) throws(RecordingError) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data: Data
        do { data = try encoder.encode(self) } catch {
            throw RecordingError(.io, "cannot encode the lake manifest: \(error)")
        }
        let temporary = Self.path(in: lake) + ".tmp-\(getpid())"
        try LakeFiles.writeFile(Array(data), to: temporary, synced: false)
        return temporary
    }
}
