import Foundation

/// A minimal record scanner for tests: splits MCAP bytes into
/// (opcode, body) pairs, so tests can check the byte layout of each record.
struct ScannedRecord: Equatable {
    var offset: Int
    var opcode: UInt8
    var body: [UInt8]
}

enum MCAPTestError: Error { case truncated(Int), badMagic }

let magic: [UInt8] = [0x89, 0x4D, 0x43, 0x41, 0x50, 0x30, 0x0D, 0x0A]

/// Scans records between the leading and trailing magic.
func scanRecords(_ bytes: [UInt8]) throws -> [ScannedRecord] {
    guard bytes.count >= 16, Array(bytes[0..<8]) == magic, Array(bytes.suffix(8)) == magic else {
        throw MCAPTestError.badMagic
    }
    return try scanRecordBodies(bytes, from: 8, to: bytes.count - 8)
}

/// Scans consecutive records in `bytes[from..<to]` (also usable on a chunk's records).
func scanRecordBodies(_ bytes: [UInt8], from start: Int, to end: Int) throws -> [ScannedRecord] {
    var records: [ScannedRecord] = []
    var at = start
    while at < end {
        guard at + 9 <= end else { throw MCAPTestError.truncated(at) }
        let length = Int(readLE(bytes, at + 1, UInt64.self))
        guard at + 9 + length <= end else { throw MCAPTestError.truncated(at) }
        records.append(ScannedRecord(offset: at, opcode: bytes[at], body: Array(bytes[(at + 9)..<(at + 9 + length)])))
        at += 9 + length
    }
    return records
}

func readLE<T: FixedWidthInteger>(_ bytes: [UInt8], _ at: Int, _: T.Type) -> T {
    var value: T = 0
    for index in 0..<MemoryLayout<T>.size { value |= T(bytes[at + index]) << (8 * index) }
    return value
}

/// Reads an MCAP string (u32 length + UTF-8) at `at`, returning it and the next offset.
func readString(_ bytes: [UInt8], _ at: Int) -> (String, Int) {
    let length = Int(readLE(bytes, at, UInt32.self))
    return (String(decoding: bytes[(at + 4)..<(at + 4 + length)], as: UTF8.self), at + 4 + length)
}

/// Little-endian bytes of an integer.
func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
    withUnsafeBytes(of: value.littleEndian) { Array($0) }
}

func mcapString(_ text: String) -> [UInt8] {
    le(UInt32(text.utf8.count)) + Array(text.utf8)
}
