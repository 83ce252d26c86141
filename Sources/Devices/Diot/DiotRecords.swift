/// The records of one DIoT data-channel notification, decoded on access.
///
/// A view over the notification's bytes: making it allocates nothing, and
/// each subscript decodes one 5-byte record. Indices run from 0 and are the
/// records' indices within the notification.
///
/// ```swift
/// let bytes: [UInt8] = [0x09, 0x00, 0x00, 0x80, 0x3F, 0x0A, 0x00, 0x00, 0x00, 0x00]
/// if case .records(let records) = try DiotDecoder().decode(bytes, channel: DiotChannel(1)!) {
///     for record in records {
///         print(record.index, record.feature, record.value)
///     }
///     // 0 accX float(1.0)
///     // 1 accY float(0.0)
/// }
/// ```
public struct DiotRecords: RandomAccessCollection, Sendable, Hashable {
    /// Positions are record indices, `0..<count`.
    public typealias Index = Int
    /// The index range.
    public typealias Indices = Range<Int>

    /// The channel that notified.
    public let channel: DiotChannel
    /// The notification's value, byte for byte (empty for a channel-empty view).
    public let bytes: [UInt8]
    /// The number of records, `bytes.count / 5`.
    public let count: Int

    /// Wraps bytes whose length the caller has checked (`count * 5 == bytes.count`).
    @inlinable
    init(channel: DiotChannel, bytes: [UInt8], count: Int) {
        self.channel = channel
        self.bytes = bytes
        self.count = count
    }

    /// An empty view, used for a channel-empty packet.
    @inlinable
    init(emptyOn channel: DiotChannel) {
        self.init(channel: channel, bytes: [], count: 0)
    }

    /// Always 0.
    @inlinable
    public var startIndex: Int { 0 }

    /// The number of records.
    @inlinable
    public var endIndex: Int { count }

    /// `0..<count`.
    @inlinable
    public var indices: Range<Int> { 0..<count }

    /// Decodes the record at `position`.
    ///
    /// - Parameter position: A record index in `0..<count`; traps otherwise, as `Array` does.
    @inlinable
    public subscript(position: Int) -> DiotRecord {
        precondition(position >= 0 && position < count, "DiotRecords index out of range")
        return bytes.withUnsafeBytes { buffer in
            DiotWire.record(at: position, in: buffer, channel: channel)
        }
    }
}
