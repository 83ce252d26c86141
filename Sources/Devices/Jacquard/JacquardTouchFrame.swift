/// One frame of the tag's touch sensor: a GEAR notification carrying a
/// DataChannel payload (extension 917) with `touch_data`.
///
/// `diff_data_scaled` is exactly 13 bytes: byte 0 is the proximity, bytes
/// 1…12 the intensities of the 12 conductive lines (0…128 on a real tag;
/// other byte values are kept as sent). The frame stores the bytes inline,
/// so building one allocates nothing; ``lines`` builds an array on demand.
/// The `sequence` counter is kept as sent; gaps are normal.
///
/// The `Codable` form:
/// `{"sequence":7,"proximity":3,"lines":[0,…],"component_id":1,"timestamp_ticks":0}`.
///
/// ```swift
/// let frame = JacquardTouchFrame(sequence: 7, proximity: 3, lines: [0, 10, 40, 90, 128, 90, 40, 10, 0, 0, 0, 0])
/// print(frame.line(4), frame.lines.count) // 128 12
/// ```
public struct JacquardTouchFrame: Sendable, Hashable, Codable {
    /// The number of conductive lines, 12.
    @inlinable
    public static var lineCount: Int { 12 }
    /// The length of `diff_data_scaled` on the wire, 13.
    @inlinable
    public static var diffDataLength: Int { 13 }

    /// `touch_data.sequence`, kept as sent.
    public var sequence: UInt32
    /// Byte 0 of `diff_data_scaled`: the proximity reading.
    public var proximity: UInt8
    /// The component that notified (envelope field 3; 0 when absent).
    public var componentID: UInt32
    /// The DataChannel's `timestamp_ticks` (field 3; 0 when absent).
    public var timestampTicks: UInt32
    /// Lines 0…7, line `i` in bits `8i…8i+7`.
    @usableFromInline
    var linesLow: UInt64
    /// Lines 8…11, line `8 + i` in bits `8i…8i+7`.
    @usableFromInline
    var linesHigh: UInt32

    /// Creates a frame.
    ///
    /// - Parameters:
    ///   - sequence: The touch sequence number.
    ///   - proximity: The proximity reading.
    ///   - lines: Exactly 12 line intensities (checked with `precondition`).
    ///   - componentID: The component that notified.
    ///   - timestampTicks: The device timestamp, in ticks.
    public init(
        sequence: UInt32,
        proximity: UInt8,
        lines: [UInt8],
        componentID: UInt32 = 0,
        timestampTicks: UInt32 = 0
    ) {
        precondition(lines.count == Self.lineCount, "a Jacquard touch frame has exactly 12 lines")
        var low: UInt64 = 0
        var high: UInt32 = 0
        for index in 0..<8 { low |= UInt64(lines[index]) << UInt64(8 * index) }
        for index in 0..<4 { high |= UInt32(lines[8 + index]) << UInt32(8 * index) }
        self.init(
            sequence: sequence, proximity: proximity, linesLow: low, linesHigh: high,
            componentID: componentID, timestampTicks: timestampTicks
        )
    }

    /// Creates a frame from packed line intensities.
    @inlinable
    init(
        sequence: UInt32,
        proximity: UInt8,
        linesLow: UInt64,
        linesHigh: UInt32,
        componentID: UInt32,
        timestampTicks: UInt32
    ) {
        self.sequence = sequence
        self.proximity = proximity
        self.linesLow = linesLow
        self.linesHigh = linesHigh
        self.componentID = componentID
        self.timestampTicks = timestampTicks
    }

    /// Creates a frame from the 13 `diff_data_scaled` bytes in `bytes`.
    ///
    /// Fixed offsets rather than a `ByteCursor`: the caller checked the
    /// length (13) before calling.
    @inlinable
    init(sequence: UInt32, diffDataScaled bytes: UnsafeRawBufferPointer, componentID: UInt32, timestampTicks: UInt32) {
        let low = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 1, as: UInt64.self))
        let high = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 9, as: UInt32.self))
        self.init(
            sequence: sequence, proximity: bytes[0], linesLow: low, linesHigh: high,
            componentID: componentID, timestampTicks: timestampTicks
        )
    }

    /// The intensity of one line.
    ///
    /// - Parameter index: The line, 0…11 (checked with `precondition`).
    /// - Returns: The intensity byte as sent.
    @inlinable
    public func line(_ index: Int) -> UInt8 {
        precondition(index >= 0 && index < Self.lineCount, "line index out of range 0…11")
        return index < 8
            ? UInt8(truncatingIfNeeded: linesLow >> UInt64(8 &* index))
            : UInt8(truncatingIfNeeded: linesHigh >> UInt32(8 &* (index &- 8)))
    }

    /// The 12 line intensities, in line order.
    public var lines: [UInt8] { (0..<Self.lineCount).map(line) }

    /// The 13 `diff_data_scaled` bytes: the proximity, then the lines.
    public var diffDataScaled: [UInt8] { [proximity] + lines }

    enum CodingKeys: String, CodingKey {
        case sequence, proximity, lines
        case componentID = "component_id"
        case timestampTicks = "timestamp_ticks"
    }

    /// Encodes the frame with the spec's field names and the lines as an array.
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(sequence, forKey: .sequence)
        try container.encode(proximity, forKey: .proximity)
        try container.encode(lines, forKey: .lines)
        try container.encode(componentID, forKey: .componentID)
        try container.encode(timestampTicks, forKey: .timestampTicks)
    }

    /// Decodes a frame written by ``encode(to:)``.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: `DecodingError` when a field is missing or `lines` does not hold 12 values.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let lines = try container.decode([UInt8].self, forKey: .lines)
        guard lines.count == Self.lineCount else {
            throw DecodingError.dataCorruptedError(
                forKey: .lines, in: container, debugDescription: "expected 12 line intensities, got \(lines.count)"
            )
        }
        self.init(
            sequence: try container.decode(UInt32.self, forKey: .sequence),
            proximity: try container.decode(UInt8.self, forKey: .proximity),
            lines: lines,
            componentID: try container.decodeIfPresent(UInt32.self, forKey: .componentID) ?? 0,
            timestampTicks: try container.decodeIfPresent(UInt32.self, forKey: .timestampTicks) ?? 0
        )
    }
}
