import Foundation

/// Bytes of a capture file, read forward through a bounded buffer, so a
/// capture of gigabytes is read in constant memory. A source may also wrap
/// bytes already in memory (tests, fuzzing).
final class CaptureByteSource {
    /// The largest record a reader accepts; longer lengths are an error, not an allocation.
    static let maximumRecordLength = 1 << 20

    private let handle: FileHandle?
    // Unchecked exclusivity: the source belongs to one reader on one task (it
    // is not Sendable), and the checks were a tenth of an import's reading time.
    @exclusivity(unchecked) private var buffer: [UInt8]
    @exclusivity(unchecked) private var start = 0
    private var atEnd: Bool
    /// Bytes consumed before `buffer[start]`.
    @exclusivity(unchecked) private(set) var offset: UInt64 = 0
    /// The file's name, for messages.
    let name: String
    /// The file's size in bytes (the bytes' count for memory sources).
    let size: UInt64

    /// Opens `path`.
    init(path: String) throws(CaptureFileError) {
        name = path
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CaptureFileError(.io, "\(path): cannot open the capture file")
        }
        self.handle = handle
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        size = (attributes?[.size] as? NSNumber)?.uint64Value ?? 0
        buffer = []
        atEnd = false
    }

    /// Wraps bytes in memory.
    init(bytes: [UInt8], name: String) {
        self.name = name
        handle = nil
        buffer = bytes
        size = UInt64(bytes.count)
        atEnd = true
    }

    deinit { try? handle?.close() }

    /// Bytes buffered and not consumed.
    private var available: Int { buffer.count - start }

    /// Makes `count` bytes available; `false` when the file ends first.
    func require(_ count: Int) throws(CaptureFileError) -> Bool {
        while available < count {
            guard !atEnd, let handle else { return false }
            if start > 0 {
                buffer.removeSubrange(0..<start)
                start = 0
            }
            let chunk: Data?
            do {
                chunk = try handle.read(upToCount: max(1 << 20, count - available))
            } catch {
                throw CaptureFileError(.io, "\(name): read failed at byte \(offset + UInt64(available)): \(error)")
            }
            guard let chunk, !chunk.isEmpty else {
                atEnd = true
                return false
            }
            buffer.append(contentsOf: chunk)
        }
        return true
    }

    /// Whether no byte is left.
    func isExhausted() throws(CaptureFileError) -> Bool { try !require(1) }

    /// The byte `at` positions ahead (after `require`).
    @inline(__always)
    func peek(_ at: Int) -> UInt8 { buffer[start + at] }

    /// A little- or big-endian 16-bit value `at` positions ahead (after `require`).
    func uint16(at: Int, bigEndian: Bool) -> UInt16 {
        let a = UInt16(buffer[start + at])
        let b = UInt16(buffer[start + at + 1])
        return bigEndian ? a << 8 | b : b << 8 | a
    }

    /// A little- or big-endian 32-bit value `at` positions ahead (after `require`).
    @inline(__always)
    func uint32(at: Int, bigEndian: Bool) -> UInt32 {
        let value = load(UInt32.self, at: at)
        return bigEndian ? UInt32(bigEndian: value) : UInt32(littleEndian: value)
    }

    /// A little- or big-endian 64-bit value `at` positions ahead (after `require`).
    @inline(__always)
    func uint64(at: Int, bigEndian: Bool) -> UInt64 {
        let value = load(UInt64.self, at: at)
        return bigEndian ? UInt64(bigEndian: value) : UInt64(littleEndian: value)
    }

    /// The bytes of a `T` `at` positions ahead, as they lie in the file (one
    /// unaligned load, bounds checked once).
    @inline(__always)
    private func load<T: FixedWidthInteger>(_: T.Type, at: Int) -> T {
        let offset = start + at
        precondition(at >= 0 && offset + MemoryLayout<T>.size <= buffer.count, "read past the buffered bytes")
        return buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: T.self) }
    }

    /// A copy of `count` bytes `at` positions ahead (after `require`).
    func bytes(at: Int, count: Int) -> [UInt8] {
        Array(buffer[(start + at)..<(start + at + count)])
    }

    /// `body` given `count` bytes `at` positions ahead, in place (after `require`).
    @inline(__always)
    func withBytes<Result>(at: Int, count: Int, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        buffer.withUnsafeBytes { all in body(UnsafeRawBufferPointer(rebasing: all[(start + at)..<(start + at + count)]))
        }
    }

    /// Consumes `count` bytes (after `require`).
    func skip(_ count: Int) {
        start += count
        offset += UInt64(count)
    }

    /// Consumes `count` bytes that may not be buffered yet; `false` when the file ends first.
    func skipAhead(_ count: UInt64) throws(CaptureFileError) -> Bool {
        var left = count
        while left > 0 {
            let step = Int(min(left, UInt64(1 << 20)))
            guard try require(step) else {
                skip(available)
                return false
            }
            skip(step)
            left -= UInt64(step)
        }
        return true
    }
}
