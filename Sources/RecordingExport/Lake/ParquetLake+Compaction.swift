import Foundation
public import Recording

#if canImport(Glibc)
import Glibc
#endif

extension ParquetLake {
    /// The name of a merged file: `compacted@<hash of its inputs' names>.parquet`
    /// (a recording's identifier never holds `@`, so it names no recording's file).
    static func compactedName(of inputs: [String]) -> String {
        "compacted@" + LakeDigest.hex(LakeDigest.hash(Array(inputs.joined(separator: "\n").utf8))) + ".parquet"
    }

    /// Merges each partition's small files into large ones, atomically for readers.
    ///
    /// In each table's leaf partition directories, the files (in name order)
    /// are grouped into runs of at most `targetBytes`; each run of two or
    /// more files becomes one file, its inputs' row groups concatenated
    /// (`ParquetConcatenation`: pages copied, not decoded; rows and values
    /// unchanged). The partition is rebuilt in a hidden sibling directory
    /// `_tlm/compact/<uuid>` (outside the tables, where no engine looks): the
    /// merged files, synced, and hard links to the files it keeps; then that
    /// directory and the partition are exchanged in one step
    /// (`renameat2(RENAME_EXCHANGE)`),
    /// so a reader listing the partition sees every old file or every new
    /// one, never a row twice or none. The manifest is rewritten (every
    /// recording keeps its identifier and digest; its files are now the
    /// merged ones, with its rows in them), then the old files are removed.
    /// All of it holds the lake's lock: an export into the lake waits for it.
    /// A failure before the manifest is written exchanges the partitions back.
    ///
    /// - Parameters:
    ///   - table: Only this table (`nil`: every table).
    ///   - targetBytes: The largest merged file, about (inputs are whole files).
    /// - Returns: What was merged; nothing when every partition has one file
    ///   or only files that reach the target together with no other.
    /// - Throws: `RecordingError`: `.notFound` for a directory that is not a
    ///   lake, `.invalidConfiguration` for an unknown table or a target below
    ///   one byte, `.corrupt` for a file that is not a Parquet file of its
    ///   table, `.io`. The lake is unchanged then.
    public func compact(table: String? = nil, targetBytes: Int64 = 256 << 20) throws(RecordingError) -> LakeCompaction {
        guard targetBytes >= 1 else {
            throw RecordingError(.invalidConfiguration, "the compaction target needs at least one byte")
        }
        _ = try manifest()
        let lock = try LakeLock(lake: directory)
        defer { lock.release() }
        var manifest = try manifest()
        if let table, !manifest.tables.contains(where: { $0.name == table }) {
            throw RecordingError(.invalidConfiguration, "\(directory) has no table \(table)")
        }
        // Every file once (several recordings share a compacted file), by partition.
        var sizes: [String: Int64] = [:]
        for recording in manifest.recordings {
            for file in recording.files where table == nil || file.table == table { sizes[file.path] = file.bytes }
        }
        var partitions: [String: [String]] = [:]
        for path in sizes.keys { partitions[(path as NSString).deletingLastPathComponent, default: []].append(path) }
        // The runs to merge, per partition.
        var plans: [(partition: String, runs: [[String]])] = []
        for partition in partitions.keys.sorted() {
            var runs: [[String]] = []
            var run: [String] = []
            var bytes: Int64 = 0
            for path in partitions[partition]!.sorted() {
                if !run.isEmpty, bytes + sizes[path]! > targetBytes {
                    runs.append(run)
                    run = []
                    bytes = 0
                }
                run.append(path)
                bytes += sizes[path]!
            }
            runs.append(run)
            runs.removeAll { $0.count < 2 }
            if !runs.isEmpty { plans.append((partition, runs)) }
        }
        var renamed: [String: LakeManifest.File] = [:]
        // Partitions exchanged: the live path and where the old directory now is.
        var exchanged: [(live: String, old: String)] = []
        var written = 0
        var rows: Int64 = 0
        do throws(RecordingError) {
            for plan in plans {
                let live = directory + "/" + plan.partition
                let hidden = directory + "/_tlm/compact/" + UUID().uuidString
                try createHidden(hidden, from: live, leaving: Set(plan.runs.joined().map { directory + "/" + $0 }))
                var merged: [(name: String, inputs: [String])] = []
                do throws(RecordingError) {
                    for run in plan.runs {
                        let name = Self.compactedName(of: run)
                        rows += try ParquetConcatenation.concatenate(
                            run.map { directory + "/" + $0 }, to: hidden + "/" + name)
                        merged.append((name, run))
                    }
                    try LakeFiles.syncDirectory(hidden)
                    try LakeFiles.exchange(hidden, live)
                } catch {
                    LakeFiles.removeTree(hidden)
                    throw error
                }
                exchanged.append((live, hidden))
                try LakeFiles.sync([(live as NSString).deletingLastPathComponent, directory + "/_tlm/compact"])
                for (name, inputs) in merged {
                    let path = plan.partition + "/" + name
                    let (bytes, digest) = try LakeFiles.sizeAndDigest(directory + "/" + path)
                    let table = String(path.prefix { $0 != "/" })
                    for input in inputs {
                        renamed[input] = LakeManifest.File(
                            path: path, table: table, rows: 0, bytes: bytes, digest: digest)
                    }
                    written += 1
                }
            }
            guard !plans.isEmpty else {
                return LakeCompaction(
                    partitions: 0, filesMerged: 0, filesWritten: 0, rows: 0, filesAfter: Self.fileCount(manifest))
            }
            for index in manifest.recordings.indices {
                var files: [LakeManifest.File] = []
                for file in manifest.recordings[index].files {
                    guard let merged = renamed[file.path] else {
                        files.append(file)
                        continue
                    }
                    if let known = files.firstIndex(where: { $0.path == merged.path }) {
                        files[known].rows += file.rows
                    } else {
                        var entry = merged
                        entry.rows = file.rows
                        files.append(entry)
                    }
                }
                manifest.recordings[index].files = files
            }
            try manifest.write(lake: directory)
        } catch {
            // Back to the old files: the manifest still lists them.
            for (live, old) in exchanged.reversed() {
                if (try? LakeFiles.exchange(old, live)) != nil { LakeFiles.removeTree(old) }
            }
            throw error
        }
        for (_, old) in exchanged { LakeFiles.removeTree(old) }
        return LakeCompaction(
            partitions: plans.count, filesMerged: renamed.count, filesWritten: written, rows: rows,
            filesAfter: Self.fileCount(manifest))
    }

    /// Distinct files the manifest lists.
    private static func fileCount(_ manifest: LakeManifest) -> Int {
        Set(manifest.recordings.flatMap { $0.files.map(\.path) }).count
    }

    /// Creates `hidden` with a hard link to every file of `live` but those in `leaving`.
    private func createHidden(_ hidden: String, from live: String, leaving: Set<String>) throws(RecordingError) {
        let entries: [String]
        do {
            try FileManager.default.createDirectory(atPath: hidden, withIntermediateDirectories: true)
            entries = try FileManager.default.contentsOfDirectory(atPath: live)
        } catch {
            LakeFiles.removeTree(hidden)
            throw RecordingError(.io, "cannot prepare the compaction of \(live): \(error.localizedDescription)")
        }
        for entry in entries.sorted() where !leaving.contains(live + "/" + entry) {
            guard link(live + "/" + entry, hidden + "/" + entry) == 0 else {
                let error = RecordingError.errno("cannot link \(live)/\(entry) into \(hidden)")
                LakeFiles.removeTree(hidden)
                throw error
            }
        }
    }
}
