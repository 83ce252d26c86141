/// The DIoT data-channel wire format: concatenated 5-byte records (feature
/// code, then the 4 value bytes little-endian), or the single byte `00` for
/// "channel empty". Used by the simulator and tests to produce real packets.
///
/// ```swift
/// let channel = DiotChannel(1)!
/// let bytes = DiotWire.encode(records: [
///     DiotRecord(channel: channel, index: 0, feature: .accX, value: .float(1)),
///     DiotRecord(channel: channel, index: 1, feature: .accY, value: .float(0)),
/// ])
/// print(bytes) // [9, 0, 0, 128, 63, 10, 0, 0, 0, 0]
/// ```
public enum DiotWire {
    /// The size of one record in bytes: 1 code byte and 4 value bytes.
    @inlinable
    public static var recordSize: Int { 5 }

    /// The channel-empty packet, the single byte `00`.
    public static let emptyPacket: [UInt8] = [0x00]

    /// Encodes records in order as one notification value.
    ///
    /// The records' channel and index are not encoded: the channel is given by
    /// the characteristic and the index by the position.
    ///
    /// - Parameter records: The records to send.
    /// - Returns: `5 × n` bytes, or ``emptyPacket`` when there are no records.
    public static func encode(records: some Sequence<DiotRecord>) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(records.underestimatedCount * recordSize)
        for record in records {
            append(feature: record.feature, raw: record.raw, to: &bytes)
        }
        return bytes.isEmpty ? emptyPacket : bytes
    }

    /// Encodes one record.
    ///
    /// - Parameters:
    ///   - feature: The feature code.
    ///   - value: The value, written as its canonical bits (``DiotValue/raw``).
    /// - Returns: 5 bytes.
    public static func encode(feature: DiotFeature, value: DiotValue) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(recordSize)
        append(feature: feature, raw: value.raw, to: &bytes)
        return bytes
    }

    /// Appends one record to a value being built.
    ///
    /// - Parameters:
    ///   - feature: The feature code.
    ///   - raw: The value bits, written little-endian.
    ///   - bytes: The value to append to.
    public static func append(feature: DiotFeature, raw: UInt32, to bytes: inout [UInt8]) {
        bytes.append(feature.rawValue)
        bytes.append(UInt8(truncatingIfNeeded: raw))
        bytes.append(UInt8(truncatingIfNeeded: raw >> 8))
        bytes.append(UInt8(truncatingIfNeeded: raw >> 16))
        bytes.append(UInt8(truncatingIfNeeded: raw >> 24))
    }

    /// Reads record `index` from a buffer holding at least `5 × (index + 1)` bytes.
    ///
    /// Not a `ByteCursor` read on purpose: ``DiotRecords`` is a random-access
    /// view whose element `i` is decoded from its computed offset, after the
    /// length rule checked the whole value once; a sequential cursor would
    /// add a bounds check per field to the hottest path for nothing.
    @inlinable
    @inline(__always)
    static func record(at index: Int, in buffer: UnsafeRawBufferPointer, channel: DiotChannel) -> DiotRecord {
        let offset = index &* recordSize
        let code = buffer.load(fromByteOffset: offset, as: UInt8.self)
        let raw = UInt32(littleEndian: buffer.loadUnaligned(fromByteOffset: offset &+ 1, as: UInt32.self))
        return DiotRecord(channel: channel, index: index, feature: DiotFeature(rawValue: code), raw: raw)
    }
}
