import Foundation
import MCAP

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Worker threads that read, decompress, check (CRC) and scan the chunks
/// of a streaming read ahead of its consumer, handing them over in the
/// order the consumer takes them: the read half of a fast export
/// (``RecordingReader/forEachMessageView(topics:from:to:_:)``), so that
/// decompression runs on the other cores while the messages are encoded.
///
/// A scanned chunk keeps its decompressed bytes and, per wanted message in
/// the range, its fields and where its payload lies: no array per message.
/// At most ``capacity`` chunks are scanned or waiting ahead of the consumer
/// (back-pressure, never an unbounded queue). Chunks the consumer is done
/// with can be given back (``recycle(_:)``): their buffers take the next
/// chunks, so a long read does not allocate (and fault in) fresh memory
/// per chunk.
///
/// Anything out of the ordinary (a file that cannot be read, a chunk that
/// does not decompress, a CRC mismatch, a torn record, a record other than a
/// Message) is not judged here: the chunk comes back as
/// ``Result/fallback(_:)`` and the consumer reads it the ordinary way
/// (``RecordingReader/messages(inChunkAt:length:path:channelID:)``), which
/// gives the ordinary errors (or skips it as damaged).
package final class ChunkPrefetcher: @unchecked Sendable {
    /// A wanted message of a scanned chunk.
    package struct Entry: Sendable {
        package var channelID: UInt16
        package var sequence: UInt32
        package var logTime: UInt64
        package var publishTime: UInt64
        /// The payload's first byte in ``Chunk/bytes``.
        package var start: Int
        /// The payload's length.
        package var count: Int
    }

    /// A scanned chunk: its records' bytes and its wanted messages in log-time
    /// order (equal times in file order).
    package struct Chunk: Sendable {
        package var bytes: [UInt8]
        package var entries: [Entry]
        /// The compressed record's length in the file (for the reader's counters).
        package var length: Int
    }

    /// What the worker made of one chunk, in the order given.
    package enum Result: Sendable {
        /// Scanned (its entries may be empty).
        case scanned(Chunk)
        /// To be read the ordinary way.
        case fallback(RecordedMessageIterator.ChunkLocation)
    }

    /// Chunks scanned ahead of the consumer, at most.
    package let capacity: Int

    private let directory: String
    private let locations: [RecordedMessageIterator.ChunkLocation]
    /// Wanted channels as a bitmap (bit `id` of word `id >> 6`).
    private let wanted: [UInt64]
    private let lower: UInt64
    private let upper: UInt64

    /// Worker threads.
    package let workers: Int

    // Shared, under `condition`.
    private let condition = NSCondition()
    /// Results not yet taken, by position in ``locations``.
    private var ready: [Int: Result] = [:]
    /// The next location a worker takes.
    private var claimed = 0
    /// Results taken by the consumer.
    private var consumed = 0
    private var stopping = false
    /// Buffers of chunks given back, for the workers to fill again.
    private var spares: [Chunk] = []
    private let exited = DispatchSemaphore(value: 0)

    /// Starts the worker.
    ///
    /// - Parameters:
    ///   - directory: The recording directory (locations' paths are relative to it).
    ///   - locations: The chunks, in the order the consumer takes them.
    ///   - wanted: The wanted channel ids.
    ///   - lower: Earliest log time (inclusive).
    ///   - upper: Latest log time (exclusive).
    ///   - capacity: Chunks scanned ahead, at most.
    ///   - workers: Worker threads (at least one; no more than the chunks).
    package init(
        directory: String, locations: [RecordedMessageIterator.ChunkLocation], wanted: Set<UInt16>,
        lower: UInt64, upper: UInt64, capacity: Int = 24,
        workers: Int
    ) {
        self.directory = directory
        self.locations = locations
        var bitmap = [UInt64](repeating: 0, count: 1024)
        for id in wanted { bitmap[Int(id >> 6)] |= 1 << UInt64(id & 63) }
        self.wanted = bitmap
        self.lower = lower
        self.upper = upper
        self.workers = max(1, min(workers, locations.count))
        self.capacity = max(self.workers, capacity)
        for number in 0..<self.workers {
            let thread = Thread { [self] in work() }
            thread.name = "tlm-read-ahead-\(number)"
            thread.start()
        }
    }

    /// The next chunk's result, waiting for the workers; `nil` after the last.
    package func next() -> Result? {
        condition.lock()
        defer { condition.unlock() }
        guard consumed < locations.count else { return nil }
        while ready[consumed] == nil { condition.wait() }
        let result = ready.removeValue(forKey: consumed)
        consumed += 1
        condition.broadcast()
        return result
    }

    /// Gives back a chunk the consumer is done with: its buffers take a
    /// later chunk (kept up to as many as can be ahead at once).
    package func recycle(_ chunk: Chunk) {
        condition.withLock {
            if spares.count < capacity + workers { spares.append(chunk) }
        }
    }

    /// Stops the workers (if they are still reading) and waits for them to end.
    package func stop() {
        condition.withLock {
            stopping = true
            condition.broadcast()
        }
        for _ in 0..<workers { exited.wait() }
    }

    private func work() {
        defer { exited.signal() }
        var files: [String: Int32] = [:]
        defer { for descriptor in files.values { close(descriptor) } }
        var compressed: [UInt8] = []
        let context = ZstdDecompressionContext()
        let lz4 = try? LZ4FrameDecompressor()
        while true {
            condition.lock()
            // At most `capacity` chunks ahead of the consumer.
            while !stopping, claimed < locations.count, claimed - consumed >= capacity { condition.wait() }
            guard !stopping, claimed < locations.count else {
                condition.unlock()
                return
            }
            let position = claimed
            claimed += 1
            var spare = spares.popLast()
            condition.unlock()
            let location = locations[position]
            let result =
                scan(location, files: &files, compressed: &compressed, context: context, lz4: lz4, spare: &spare)
                .map(Result.scanned) ?? .fallback(location)
            condition.withLock {
                ready[position] = result
                condition.broadcast()
            }
        }
    }

    /// Reads and scans one chunk (into the buffers of `spare`, when given,
    /// which it takes); `nil` when it must be read the ordinary way.
    private func scan(
        _ location: RecordedMessageIterator.ChunkLocation, files: inout [String: Int32], compressed: inout [UInt8],
        context: ZstdDecompressionContext?, lz4: LZ4FrameDecompressor?, spare: inout Chunk?
    ) -> Chunk? {
        // The spare's buffers, moved out so that they are unique (filled in place, not copied).
        var spareBytes: [UInt8] = []
        var entries: [Entry] = []
        if spare != nil {
            swap(&spareBytes, &spare!.bytes)
            swap(&entries, &spare!.entries)
            spare = nil
        }
        let path = directory + "/" + location.path
        let descriptor: Int32
        if let open = files[path] {
            descriptor = open
        } else {
            guard let handle = try? RegularFile.openForReading(path) else { return nil }
            let duplicate = dup(handle.fileDescriptor)
            try? handle.close()
            guard duplicate >= 0 else { return nil }
            files[path] = duplicate
            descriptor = duplicate
        }
        let length = location.length
        guard length >= 9, location.offset <= UInt64(Int.max) else { return nil }
        if compressed.count < length { compressed = [UInt8](repeating: 0, count: length) }
        let complete = compressed.withUnsafeMutableBytes { buffer -> Bool in
            var done = 0
            while done < length {
                let count = pread(
                    descriptor, buffer.baseAddress! + done, length - done, off_t(location.offset) + off_t(done))
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return false }
                done += count
            }
            return true
        }
        guard complete else { return nil }
        return compressed.withUnsafeBytes { buffer -> Chunk? in
            let record = UnsafeRawBufferPointer(rebasing: buffer[0..<length])
            guard record[0] == MCAPOpcode.chunk.rawValue else { return nil }
            var position = 9
            func u64() -> UInt64? {
                guard position + 8 <= record.count else { return nil }
                defer { position += 8 }
                return UInt64(littleEndian: record.loadUnaligned(fromByteOffset: position, as: UInt64.self))
            }
            func u32() -> UInt32? {
                guard position + 4 <= record.count else { return nil }
                defer { position += 4 }
                return UInt32(littleEndian: record.loadUnaligned(fromByteOffset: position, as: UInt32.self))
            }
            guard u64() != nil, u64() != nil, let size = u64(), let crc = u32(), let nameLength = u32(),
                Int(nameLength) <= record.count - position
            else { return nil }
            let compression = UnsafeRawBufferPointer(rebasing: record[position..<(position + Int(nameLength))])
            position += Int(nameLength)
            guard let recordsLength = u64(), recordsLength <= UInt64(record.count - position),
                size <= UInt64(Int32.max)
            else { return nil }
            let records = UnsafeRawBufferPointer(rebasing: record[position..<(position + Int(recordsLength))])
            let isLZ4 = compression.elementsEqual("lz4".utf8)
            // More than LZ4 frames of this length can hold: corrupt, left to the ordinary path's error.
            guard !isLZ4 || Int(size) <= LZ4FrameDecompressor.maximumDecompressedSize(ofCompressed: records.count)
            else { return nil }
            var bytes = Self.buffer(count: Int(size), reusing: &spareBytes)
            if compression.isEmpty {
                guard UInt64(records.count) == size else { return nil }
                bytes.withUnsafeMutableBytes { $0.copyMemory(from: records) }
            } else if compression.elementsEqual("zstd".utf8), let context {
                let ok = bytes.withUnsafeMutableBytes { context.decompress(records, into: $0) }
                guard ok else { return nil }
            } else if isLZ4, let lz4 {
                do {
                    try bytes.withMutableBytes { (out: UnsafeMutableRawBufferPointer) throws(MCAPError) in
                        try lz4.decompress(records, into: out)
                    }
                } catch {
                    return nil
                }
            } else {
                return nil
            }
            if crc != 0 {
                var check = CRC32()
                bytes.withUnsafeBytes { check.update($0) }
                guard check.value == crc else { return nil }
            }
            entries.removeAll(keepingCapacity: true)
            guard bytes.withUnsafeBytes({ self.wantedMessages(in: $0, into: &entries) }) else { return nil }
            return Chunk(bytes: bytes, entries: entries, length: length)
        }
    }

    /// A buffer of `count` bytes (their values unspecified): `spare`, resized, when it has the room.
    private static func buffer(count: Int, reusing spare: inout [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        swap(&bytes, &spare)
        guard bytes.capacity >= count else {
            return [UInt8](unsafeUninitializedCapacity: count) { _, initialized in initialized = count }
        }
        if bytes.count > count {
            bytes.removeLast(bytes.count - count)
        } else if bytes.count < count {
            bytes.append(contentsOf: repeatElement(0, count: count - bytes.count))
        }
        return bytes
    }

    /// The wanted messages in the range of a chunk's records, sorted by log
    /// time (stable), into `entries` (empty); false when a record is torn or
    /// is not a Message.
    private func wantedMessages(in records: UnsafeRawBufferPointer, into entries: inout [Entry]) -> Bool {
        var sorted = true
        var position = 0
        let end = records.count
        while position < end {
            guard end - position >= 9 else { return false }
            let opcode = records[position]
            let length = UInt64(littleEndian: records.loadUnaligned(fromByteOffset: position + 1, as: UInt64.self))
            let body = position + 9
            guard length <= UInt64(end - body) else { return false }
            guard opcode == MCAPOpcode.message.rawValue, length >= 22 else { return false }
            position = body + Int(length)
            let channelID = UInt16(littleEndian: records.loadUnaligned(fromByteOffset: body, as: UInt16.self))
            guard wanted[Int(channelID >> 6)] & (1 << UInt64(channelID & 63)) != 0 else { continue }
            let logTime = UInt64(littleEndian: records.loadUnaligned(fromByteOffset: body + 6, as: UInt64.self))
            guard logTime >= lower, logTime < upper else { continue }
            if let last = entries.last, last.logTime > logTime { sorted = false }
            entries.append(
                Entry(
                    channelID: channelID,
                    sequence: UInt32(littleEndian: records.loadUnaligned(fromByteOffset: body + 2, as: UInt32.self)),
                    logTime: logTime,
                    publishTime: UInt64(
                        littleEndian: records.loadUnaligned(fromByteOffset: body + 14, as: UInt64.self)),
                    start: body + 22, count: Int(length) - 22))
        }
        if !sorted {
            // Stable: equal times keep their file order.
            entries = entries.enumerated()
                .sorted { ($0.element.logTime, $0.offset) < ($1.element.logTime, $1.offset) }
                .map(\.element)
        }
        return true
    }
}
