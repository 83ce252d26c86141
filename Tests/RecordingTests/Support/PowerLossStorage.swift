import Foundation
import Locking

@testable import Recording

/// A ``SegmentStorage`` that simulates a power loss, after SQLite's crash
/// test (`test6.c`): segment files live in memory, every write and sync is
/// recorded per file, and at a chosen operation the power goes — that
/// operation and every later one fail, so nothing more reaches the "disk".
/// ``materialize(into:_:fate:)`` then writes the files as a disk could hold
/// them after the loss: what was synced, plus a random part of what was not
/// (each unsynced write kept whole, dropped, cut to a prefix, torn at
/// 512-byte sector granularity, or present in size only, as zeros), and a
/// file whose directory was never synced after its creation may be gone.
///
/// Operations are counted in the order they happen, under one lock. Writes
/// come in the recording's order; with ``Durability/chunk`` the pipeline's
/// sync thread syncs concurrently with the next writes, so where a sync falls
/// among them (and how many chunks one covers) depends on timing, and a
/// replay with the same inputs may crash at a different operation.
final class PowerLossStorage: SegmentStorage {
    /// What happens to the unsynced part of the files.
    enum Fate {
        /// Each unsynced write, and each unsynced file name, is kept or lost at random.
        case random
        /// Nothing that was not synced survives.
        case dropEverythingUnsynced
        /// Everything written survives: a killed process, not a power loss.
        case keepEverything
    }

    /// One file as the storage knows it.
    struct File {
        var path: String
        /// Every byte written (what the page cache holds).
        var bytes: [UInt8] = []
        /// `bytes[..<syncedLength]` is on stable storage.
        var syncedLength = 0
        /// Its directory was synced after it was created: its name survives.
        var nameIsDurable = false
        /// The writes since the last sync: offset and length.
        var unsynced: [(offset: Int, count: Int)] = []
        var writes = 0
        var syncs = 0
    }

    /// Counts of operations, for assertions.
    struct Counts: Equatable {
        var operations = 0, creates = 0, writes = 0, syncs = 0, directorySyncs = 0, closes = 0
    }

    private struct State {
        var files: [Int32: File] = [:]
        var nextDescriptor: Int32 = 100
        var counts = Counts()
        var crashAt: Int?
        var crashed = false
    }

    private let state: Locked<State>

    /// A storage that loses power at operation `crashAt` (0-based), or never
    /// before ``powerOff()`` when `nil`.
    init(crashAt: Int? = nil) {
        state = Locked(State(crashAt: crashAt))
    }

    /// Whether the power is gone.
    var hasCrashed: Bool { state.withLock { $0.crashed } }

    /// The operations so far.
    var counts: Counts { state.withLock { $0.counts } }

    /// The files, by path, as at the loss.
    var files: [String: File] {
        state.withLock { state in Dictionary(state.files.values.map { ($0.path, $0) }, uniquingKeysWith: { $1 }) }
    }

    /// Cuts the power now (after a recording that ended normally).
    func powerOff() {
        state.withLock { $0.crashed = true }
    }

    /// Whether `range` of the file at `path` is on stable storage: its name
    /// survives and the bytes were synced.
    func isDurable(path: String, range: Range<Int>) -> Bool {
        guard let file = files[path] else { return false }
        return file.nameIsDurable && range.upperBound <= file.syncedLength
    }

    /// Counts an operation; throws once the power is gone. `inFlight` runs
    /// for the operation the power goes at (a write may partly land).
    private func operation(
        _ what: String, _ body: (inout State) -> Void,
        inFlight: (inout State) -> Void = { _ in }
    ) throws(RecordingError) {
        let crash: Int? = state.withLock { state in
            if state.crashed { return state.counts.operations }
            if state.crashAt == state.counts.operations {
                state.crashed = true
                inFlight(&state)
                return state.counts.operations
            }
            state.counts.operations += 1
            body(&state)
            return nil
        }
        if let crash { throw RecordingError(.io, "simulated power loss at operation \(crash) (\(what))") }
    }

    func create(_ path: String) throws(RecordingError) -> Int32 {
        var descriptor: Int32 = -1
        try operation("create \(path)") { state in
            if state.files.values.contains(where: { $0.path == path }) { return }
            descriptor = state.nextDescriptor
            state.nextDescriptor += 1
            state.files[descriptor] = File(path: path)
            state.counts.creates += 1
        }
        guard descriptor >= 0 else { throw RecordingError(.io, "\(path) already exists") }
        return descriptor
    }

    func write(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(RecordingError) {
        let data = [UInt8](bytes)
        let append = { (state: inout State) in
            guard var file = state.files[descriptor] else { return }
            file.unsynced.append((file.bytes.count, data.count))
            file.bytes += data
            file.writes += 1
            state.files[descriptor] = file
        }
        try operation(
            "write \(data.count) bytes to \(path)",
            { state in
                append(&state)
                state.counts.writes += 1
            }, inFlight: append)
    }

    func sync(_ descriptor: Int32, path: String) throws(RecordingError) {
        try operation("sync \(path)") { state in
            guard var file = state.files[descriptor] else { return }
            file.syncedLength = file.bytes.count
            file.unsynced.removeAll()
            file.syncs += 1
            state.files[descriptor] = file
            state.counts.syncs += 1
        }
    }

    func close(_ descriptor: Int32, path: String) throws(RecordingError) {
        try operation("close \(path)") { $0.counts.closes += 1 }
    }

    func syncDirectory(_ path: String) throws(RecordingError) {
        try operation("sync directory \(path)") { state in
            for (descriptor, file) in state.files where SegmentWriter.directory(of: file.path) == path {
                state.files[descriptor]?.nameIsDurable = true
            }
            state.counts.directorySyncs += 1
        }
    }

    /// Writes the files to the real file system as the disk holds them after
    /// the power loss (cut it first with ``powerOff()`` if it has not gone).
    /// Returns what happened to each unsynced write, for the failure message.
    @discardableResult
    func materialize(
        into fileManager: FileManager = .default, _ random: inout some RandomNumberGenerator,
        fate: Fate = .random
    ) throws -> [String] {
        powerOff()
        var log: [String] = []
        for file in files.values.sorted(by: { $0.path < $1.path }) {
            try? fileManager.removeItem(atPath: file.path)
            if !file.nameIsDurable, fate != .keepEverything,
                fate == .dropEverythingUnsynced || Bool.random(using: &random)
            {
                log.append("\(file.path): name lost")
                continue
            }
            var image = Array(file.bytes[..<file.syncedLength])
            func place(_ range: Range<Int>, zeros: Bool = false) {
                guard !range.isEmpty else { return }
                if image.count < range.upperBound {
                    image.append(contentsOf: repeatElement(0, count: range.upperBound - image.count))
                }
                if !zeros { image.replaceSubrange(range, with: file.bytes[range]) }
            }
            for (offset, count) in file.unsynced {
                let range = offset..<(offset + count)
                guard fate == .random else {
                    if fate == .keepEverything { place(range) }
                    continue
                }
                switch random.next() % 5 {
                case 0:
                    place(range)
                    log.append("\(file.path): write \(range) kept")
                case 1:
                    log.append("\(file.path): write \(range) dropped")
                case 2:
                    let kept = Int(random.next() % UInt64(count + 1))
                    place(offset..<(offset + kept))
                    log.append("\(file.path): write \(range) cut to \(kept) bytes")
                case 3:
                    // Each 512-byte sector of the disk the write touches lands or not.
                    var sector = offset / 512 * 512
                    var kept: [Int] = []
                    while sector < range.upperBound {
                        let part = max(sector, offset)..<min(sector + 512, range.upperBound)
                        if Bool.random(using: &random) {
                            place(part)
                            kept.append(sector / 512)
                        }
                        sector += 512
                    }
                    log.append("\(file.path): write \(range) torn, sectors \(kept) kept")
                default:
                    // The size reached the disk, the data did not.
                    place(range, zeros: true)
                    log.append("\(file.path): write \(range) zeroed")
                }
            }
            guard fileManager.createFile(atPath: file.path, contents: Data(image)) else {
                throw RecordingError(.io, "cannot write \(file.path)")
            }
        }
        return log
    }
}
