import Foundation
public import Recording

/// A lake: the recordings of a fleet in one directory of Parquet tables
/// that Spark, Trino, DuckDB, polars and pandas read as they are.
///
/// Layout (docs/lake.md):
///
/// ```text
/// LAKE/<table>/<key>=<value>/…/<recording>.parquet   one table per schema, Hive-partitioned
/// LAKE/_tlm/manifest.json                            recordings, tables, files (``LakeManifest``)
/// LAKE/_tlm/lock, LAKE/_tlm/staging/                 the update lock, files being written
/// ```
///
/// Each table holds the rows of one schema from every stream and every
/// recording: `topic`, `device_id`, `device_family`, `recording`,
/// `sample_time` and `receive_time` (TIMESTAMP(MICROS, UTC)),
/// `sample_time_ns` and `receive_time_ns` (INT64, exact), `sequence`, then
/// the schema's fields. A recording adds one file per table per partition.
///
/// ``add(_:partitionKeys:progress:)`` reads the recording in receive-time
/// order and writes its files under `_tlm/staging/`, each synced in the
/// background once complete, then, holding the lake's lock, moves them
/// into place (a rename each: a file appears whole or not at all) and
/// rewrites the manifest. A recording whose identifier and content digest
/// the manifest holds already adds nothing; one whose identifier it holds
/// with another digest is refused. Engines that list files never see a
/// half-written one; the manifest lists a recording only once all its
/// files are in place.
///
/// ```swift
/// let lake = ParquetLake(directory: "fleet")
/// let outcome = try lake.add(try RecordingSource(path: "ride"), partitionKeys: [.date, .device])
/// print(outcome.added ? "added \(outcome.files.count) files" : "already in the lake")
/// ```
public struct ParquetLake: Sendable {
    /// The lake's directory.
    public let directory: String
    /// Rows per row group, at most (row groups of about a million rows, as engines prefer).
    public var rowGroupRows = 1 << 20

    /// A lake in `directory` (created by the first ``add(_:partitionKeys:progress:)``).
    public init(directory: String) {
        self.directory = directory
    }

    /// The identifier a recording has in a lake: its directory's (or MCAP file's) name, path-safe.
    public static func recordingID(of source: RecordingSource) -> String {
        var name = URL(fileURLWithPath: source.path).lastPathComponent
        if name.lowercased().hasSuffix(".mcap") { name = String(name.dropLast(5)) }
        return LakePathComponent.escaped(name)
    }

    /// Adds every message of every stream of a recording (loss records included),
    /// each file's rows in receive-time order.
    ///
    /// - Parameters:
    ///   - source: The recording (or MCAP file).
    ///   - partitionKeys: The Hive partition keys, outermost first: those of the lake when it has a manifest.
    ///   - progress: Takes the messages written so far.
    /// - Returns: What was added (nothing when the lake holds the recording already).
    /// - Throws: `RecordingError`: `.invalidConfiguration` for a directory that is not a lake, other
    ///   partition keys than the lake's, a recording the lake holds with other content, or a schema
    ///   whose table holds another definition; `.corrupt` for a stamped topic whose sample times go back
    ///   or follow their receive times; `.io` and the reader's errors. Nothing is added then.
    public func add(
        _ source: RecordingSource, partitionKeys: [ParquetPartitionKey], progress: ((Int) -> Void)? = nil
    ) throws(RecordingError) -> LakeAddOutcome {
        try prepare(partitionKeys: partitionKeys)
        let id = Self.recordingID(of: source)
        let staging = directory + "/_tlm/staging/" + UUID().uuidString
        // Each file is synced (and hashed) in the background once written, while the next ones are.
        let syncs = LakeSyncQueue()
        defer {
            _ = try? syncs.wait()
            LakeFiles.removeTree(staging)
        }
        let exporter = try ParquetExporter(
            directory: staging, partitionKeys: partitionKeys, rowGroupRows: rowGroupRows, lakeRecording: id)
        exporter.fileFinished = { syncs.add($0) }
        // In receive-time order: the fast read (chunks read ahead, payloads lent, in runs), no merge by
        // sample time across topics; the exporter checks each stamped topic's sample times as that merge would.
        let count = try source.export(topics: source.topics, time: .receive, into: exporter, progress: progress)
        let digest = exporter.contentDigest.text
        // Manifest entries are never removed: a recording listed already needs no lock and no sync.
        if let known = try LakeManifest.read(lake: directory)?.recordings.first(where: { $0.id == id }),
            known.digest == digest
        {
            return LakeAddOutcome(
                recording: id, digest: digest, added: false, messageCount: count, files: [], tables: [])
        }
        let staged = exporter.stagedNames
        let synced = try syncs.wait()
        var files: [LakeManifest.File] = []
        for name in exporter.writtenFiles {
            let path = staging + "/" + (staged[name] ?? name)
            guard let (bytes, fileDigest) = synced[path] else {
                throw RecordingError(.io, "\(path) was written but not synced")
            }
            let table = String(name.prefix { $0 != "/" })
            files.append(
                LakeManifest.File(
                    path: name, table: table, rows: exporter.fileRows[name] ?? 0, bytes: bytes, digest: fileDigest))
        }
        let lock = try LakeLock(lake: directory)
        defer { lock.release() }
        var manifest =
            try LakeManifest.read(lake: directory)
            ?? LakeManifest(partitionKeys: partitionKeys.map(\.rawValue), tables: [], recordings: [])
        try Self.checkKeys(manifest, partitionKeys, lake: directory)
        if let known = manifest.recordings.first(where: { $0.id == id }) {
            guard known.digest == digest else {
                throw RecordingError(
                    .invalidConfiguration,
                    "\(directory) already holds a recording \(id) with other content (digest \(known.digest), "
                        + "this one \(digest)): nothing added; rename the recording to add it as another one")
            }
            return LakeAddOutcome(
                recording: id, digest: digest, added: false, messageCount: count, files: [], tables: [])
        }
        let used = Set(files.map(\.table))
        for (name, table) in exporter.lakeTables where used.contains(name) {
            let schemaDigest = LakeDigest.hex(LakeDigest.hash(Array(table.schema.joined(separator: "\n").utf8)))
            if let known = manifest.tables.first(where: { $0.name == name }) {
                guard known.schemaDigest == schemaDigest else {
                    throw RecordingError(
                        .invalidConfiguration,
                        "table \(name) of \(directory) holds schema \(known.schema) with another definition than "
                            + "\(id)'s: nothing added")
                }
            } else {
                manifest.tables.append(
                    LakeManifest.Table(
                        name: name, schema: table.schema[0], schemaEncoding: table.schema[1],
                        schemaDigest: schemaDigest, columns: table.columns))
            }
        }
        // The files named after this recording are its own until the manifest lists it:
        // when anything fails before, they are removed again.
        var moved: [String] = []
        do throws(RecordingError) {
            var directories = Set<String>()
            for file in files {
                let parent = (file.path as NSString).deletingLastPathComponent
                try OutputDirectory.createBelow(directory, relative: parent)
                try LakeFiles.rename(staging + "/" + (staged[file.path] ?? file.path), to: directory + "/" + file.path)
                moved.append(directory + "/" + file.path)
                directories.insert(directory + "/" + parent)
            }
            manifest.tables.sort { $0.name < $1.name }
            manifest.recordings.append(
                LakeManifest.Recording(
                    id: id, digest: digest, messages: Int64(count), added: ISO8601DateFormatter().string(from: Date()),
                    files: files))
            // The directories and the new manifest synced at once; then the manifest renamed into place.
            let temporary = try manifest.writeTemporary(lake: directory)
            moved.append(temporary)
            try LakeFiles.sync(directories.sorted() + [temporary])
            try LakeFiles.rename(temporary, to: LakeManifest.path(in: directory))
        } catch {
            for path in moved { try? FileManager.default.removeItem(atPath: path) }
            throw error
        }
        // Committed: the files stay whatever happens now.
        try LakeFiles.syncDirectory(directory + "/_tlm")
        return LakeAddOutcome(
            recording: id, digest: digest, added: true, messageCount: count, files: files.map(\.path),
            tables: used.sorted())
    }

    /// The lake's manifest.
    ///
    /// - Throws: `RecordingError` (`.notFound`) when the directory is not a lake, `.corrupt` for a bad manifest.
    public func manifest() throws(RecordingError) -> LakeManifest {
        guard let manifest = try LakeManifest.read(lake: directory) else {
            throw RecordingError(.notFound, "\(directory) is not a tlm lake (no _tlm/manifest.json)")
        }
        return manifest
    }

    /// Checks the lake's files against its manifest: every file listed is
    /// there with its size and hash, no recording is listed twice, and no
    /// table holds a Parquet file the manifest does not list.
    ///
    /// - Throws: `RecordingError` (`.notFound`) when the directory is not a lake, `.corrupt` for a bad manifest.
    public func verify() throws(RecordingError) -> LakeVerification {
        let manifest = try manifest()
        var problems: [String] = []
        var listed = Set<String>()
        var ids = Set<String>()
        var rows: Int64 = 0
        // A compacted file is listed by every recording with rows in it: read once.
        var checked: [String: (bytes: Int64, digest: String)?] = [:]
        let tables = Set(manifest.tables.map(\.name))
        for recording in manifest.recordings {
            if !ids.insert(recording.id).inserted { problems.append("recording \(recording.id) is listed twice") }
            for file in recording.files {
                listed.insert(file.path)
                rows += file.rows
                if !tables.contains(file.table) {
                    problems.append("\(file.path): its table \(file.table) is not in the manifest")
                }
                let path = directory + "/" + file.path
                if checked[file.path] == nil {
                    var found: (bytes: Int64, digest: String)?
                    if FileManager.default.fileExists(atPath: path) { found = try LakeFiles.sizeAndDigest(path) }
                    checked[file.path] = .some(found)
                }
                guard let (bytes, digest) = checked[file.path] ?? nil else {
                    problems.append("\(file.path) (recording \(recording.id)) is missing")
                    continue
                }
                if bytes != file.bytes {
                    problems.append("\(file.path) has \(bytes) bytes; the manifest says \(file.bytes)")
                } else if digest != file.digest {
                    problems.append(
                        "\(file.path) has other bytes than the manifest's (hash \(digest), not \(file.digest))")
                }
            }
        }
        for table in manifest.tables.map(\.name).sorted() {
            guard let enumerator = FileManager.default.enumerator(atPath: directory + "/" + table) else {
                problems.append("table \(table) has no directory")
                continue
            }
            while let relative = enumerator.nextObject() as? String {
                let path = table + "/" + relative
                if relative.hasSuffix(".parquet"), !listed.contains(path) {
                    problems.append("\(path) is not in the manifest (engines read its rows)")
                }
            }
        }
        return LakeVerification(files: listed.count, rows: rows, problems: problems)
    }

    /// Checks the directory may be a lake and creates `_tlm` and its staging directory.
    private func prepare(partitionKeys: [ParquetPartitionKey]) throws(RecordingError) {
        try OutputDirectory.checkExport(directory)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw RecordingError(.invalidConfiguration, "\(directory) is a file; a lake is a directory")
            }
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            if !entries.isEmpty, !entries.contains("_tlm") {
                throw RecordingError(
                    .invalidConfiguration,
                    "\(directory) is not a tlm lake (it holds files but no _tlm/): give a new or empty directory")
            }
        }
        do {
            try FileManager.default.createDirectory(
                atPath: directory + "/_tlm/staging", withIntermediateDirectories: true)
        } catch {
            throw RecordingError(.io, "cannot create \(directory)/_tlm: \(error.localizedDescription)")
        }
        if let manifest = try LakeManifest.read(lake: directory) {
            try Self.checkKeys(manifest, partitionKeys, lake: directory)
        }
    }

    private static func checkKeys(
        _ manifest: LakeManifest, _ keys: [ParquetPartitionKey], lake: String
    ) throws(RecordingError) {
        guard manifest.partitionKeys == keys.map(\.rawValue) else {
            let known = manifest.partitionKeys.joined(separator: ",")
            throw RecordingError(
                .invalidConfiguration,
                "\(lake) is partitioned by \(known.isEmpty ? "nothing" : known): give --partition \(known)")
        }
    }
}
