import Foundation
import Recording

#if canImport(Glibc)
import Glibc
#endif

/// Bytes of a capture file, read forward through a bounded buffer, so a
/// capture of gigabytes is read in constant memory. A source may also wrap
/// bytes already in memory (tests, fuzzing).
final class CaptureByteSource {
    /// The largest record a reader accepts; longer lengths are an error, not an allocation.
    static let maximumRecordLength = 1 << 20

    private let handle: FileHandle?
    /// Bytes read at once (the buffer's size, unless a longer record needs more).
    static let readSize = 1 << 20

    // Unchecked exclusivity: the source belongs to one reader on one task (it
    // is not Sendable), and the checks were a tenth of an import's reading time.
    // The file is read straight into `buffer`, whose bytes `start..<end` are
    // read and not consumed; its size stays, so reading allocates nothing.
    @exclusivity(unchecked) private var buffer: [UInt8]
    @exclusivity(unchecked) private var start = 0
    @exclusivity(unchecked) private var end = 0
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
        // A FIFO, a device or a directory is refused, never waited on.
        let handle: FileHandle
        do throws(RecordingError) {
            handle = try RegularFile.openForReading(path)
        } catch  where error.code == .notFound {
            // The words every verb uses for a missing path.
            throw CaptureFileError(.io, "\(path) does not exist (expected a capture file)")
        } catch {
            throw CaptureFileError(.io, "\(path): cannot open the capture file: \(error.message)")
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
        end = bytes.count
        size = UInt64(bytes.count)
        atEnd = true
    }

    deinit { try? handle?.close() }

    /// Bytes buffered and not consumed.
    private var available: Int { end - start }

    /// Makes `count` bytes available; `false` when the file ends first.
    func require(_ count: Int) throws(CaptureFileError) -> Bool {
        while available < count {
            guard !atEnd, let handle else { return false }
            try fill(handle.fileDescriptor, toHold: count)
        }
        return true
    }

    /// Moves the bytes not consumed to the buffer's start and reads the file
    /// after them, into the buffer (grown when `count` bytes would not fit).
    private func fill(_ descriptor: Int32, toHold count: Int) throws(CaptureFileError) {
        let unread = available
        buffer.withUnsafeMutableBytes { bytes in
            if start > 0, unread > 0, let base = bytes.baseAddress {
                memmove(base, base + start, unread)
            }
        }
        start = 0
        end = unread
        // Up to `readSize` (less for a small file, at least 64 KiB), and at least `count`.
        let left = self.size > offset + UInt64(unread) ? Int(clamping: self.size - offset - UInt64(unread)) : 0
        let wanted = max(count, min(Self.readSize, max(1 << 16, unread + left)))
        if buffer.count < wanted {
            var grown = [UInt8](repeating: 0, count: wanted)
            grown.withUnsafeMutableBytes { target in
                buffer.withUnsafeBytes { source in
                    target.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[0..<unread]))
                }
            }
            buffer = grown
        }
        while true {
            let got = buffer.withUnsafeMutableBytes { bytes in
                read(descriptor, bytes.baseAddress! + end, bytes.count - end)
            }
            if got > 0 {
                end += got
                return
            }
            if got == 0 {
                atEnd = true
                return
            }
            let code = errno
            if code == EINTR { continue }
            throw CaptureFileError(
                .io, "\(name): read failed at byte \(offset + UInt64(unread)): \(String(cString: strerror(code)))")
        }
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
        precondition(at >= 0 && offset + MemoryLayout<T>.size <= end, "read past the buffered bytes")
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
