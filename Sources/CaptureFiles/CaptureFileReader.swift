/// Reads a Bluetooth capture file packet by packet, in bounded memory:
/// btsnoop (datalinks 1001, 1002, 2001), pcapng and pcap (link types 187,
/// 201, 254, 256). The format is recognised by the file's first bytes.
///
/// ```swift
/// let reader = try CaptureFileReader(path: "btsnoop_hci.log")
/// while let packet = try reader.next() {
///     print(packet.kind, packet.direction, packet.bytes.count)
/// }
/// ```
///
/// Not `Sendable`: a reader belongs to the task reading it.
public final class CaptureFileReader {
    /// The formats this build reads.
    public enum Format: String, Sendable, Hashable {
        /// btsnoop.
        case btsnoop
        /// pcapng.
        case pcapng
        /// Classic pcap.
        case pcap
    }

    /// The file's format.
    public let format: Format
    /// The file's name, as given.
    public let name: String
    /// The file's size in bytes.
    public let size: UInt64
    private let source: CaptureByteSource
    private let reader: any CapturePacketReader

    /// Opens the capture at `path` and reads its header.
    ///
    /// - Throws: ``CaptureFileError`` when the file cannot be read, is none
    ///   of the formats, or has a version or link type this build does not read.
    public convenience init(path: String) throws(CaptureFileError) {
        try self.init(source: CaptureByteSource(path: path))
    }

    /// Reads a capture held in memory (tests, fuzzing).
    ///
    /// - Throws: As ``init(path:)``.
    public convenience init(bytes: [UInt8], name: String = "<memory>") throws(CaptureFileError) {
        try self.init(source: CaptureByteSource(bytes: bytes, name: name))
    }

    private init(source: CaptureByteSource) throws(CaptureFileError) {
        self.source = source
        name = source.name
        size = source.size
        guard try source.require(4) else {
            throw CaptureFileError(
                .unknownFormat,
                "\(source.name): too short to be a capture file "
                    + "(\(source.size) bytes)")
        }
        let magic = source.uint32(at: 0, bigEndian: true)
        switch magic {
        case 0x6274_736E:
            guard try source.require(8), source.bytes(at: 0, count: 8) == Array("btsnoop\0".utf8) else {
                throw Self.unknown(source)
            }
            format = .btsnoop
            reader = try BTSnoopReader(source: source)
        case 0x0A0D_0D0A:
            format = .pcapng
            reader = PCAPNGReader(source: source)
        case 0xA1B2_C3D4, 0xD4C3_B2A1, 0xA1B2_3C4D, 0x4D3C_B2A1:
            format = .pcap
            reader = try PCAPReader(source: source)
        default:
            throw Self.unknown(source)
        }
    }

    private static func unknown(_ source: CaptureByteSource) -> CaptureFileError {
        let count = (try? source.require(8)) == true ? 8 : 4
        let head = source.bytes(at: 0, count: count).map { hexByte($0) }.joined(separator: " ")
        return CaptureFileError(
            .unknownFormat,
            "\(source.name): not a btsnoop, pcapng or pcap file "
                + "(it starts with \(head))")
    }

    /// The next packet, or `nil` at the end of the file.
    ///
    /// - Throws: ``CaptureFileError`` for a damaged file (an absurd length, a
    ///   block that does not close); packets read before stay valid.
    public func next() throws(CaptureFileError) -> CapturedPacket? {
        try reader.next()
    }

    /// The next packet, or `nil` at the end of the file, offered to
    /// `analyzer` first when it is one whole notification or indication
    /// (btsnoop's H4 records are recognised in place, without a packet).
    ///
    /// - Throws: As ``next()``.
    func next(
        analyzing analyzer: inout HCITrafficAnalyzer, keepingBytes: Bool
    ) throws(CaptureFileError)
        -> CaptureRecord?
    {
        try reader.next(analyzing: &analyzer, keepingBytes: keepingBytes)
    }

    /// Reads the run of values from here, without their bytes (see
    /// ``CapturePacketReader/readValues(analyzing:into:)``).
    ///
    /// - Throws: As ``next()``.
    func readValues(
        analyzing analyzer: inout HCITrafficAnalyzer, into survey: inout CaptureSurvey
    ) throws(CaptureFileError) {
        try reader.readValues(analyzing: &analyzer, into: &survey)
    }

    /// Reads the run of values from here into `batch` (see
    /// ``CapturePacketReader/readValues(analyzing:resolving:into:upTo:lastTime:)``).
    ///
    /// - Throws: As ``next()``.
    func readValues(
        analyzing analyzer: inout HCITrafficAnalyzer, resolving resolver: inout CaptureValueResolver,
        into batch: inout CaptureOutputBatch, upTo limit: Int, lastTime: inout UInt64
    ) throws(CaptureFileError) {
        try reader.readValues(
            analyzing: &analyzer, resolving: &resolver, into: &batch, upTo: limit, lastTime: &lastTime)
    }

    /// ``next(analyzing:keepingBytes:)`` with a value's bytes appended to `bytes` (the record's are empty).
    ///
    /// - Throws: As ``next()``.
    func next(
        analyzing analyzer: inout HCITrafficAnalyzer, appendingValueTo bytes: inout [UInt8]
    ) throws(CaptureFileError)
        -> CaptureRecord?
    {
        try reader.next(analyzing: &analyzer, appendingValueTo: &bytes)
    }

    /// Bytes read so far.
    public var bytesRead: UInt64 { source.offset }

    /// Whether the file ended inside a record (a capture cut short): known once ``next()`` returned `nil`.
    public var endedInsideRecord: Bool { reader.endedInsideRecord }

    /// Records skipped because they are not Bluetooth HCI (another interface's link type).
    public var skippedRecords: Int { reader.skippedRecords }
}

/// Two lower-case hex digits.
func hexByte(_ byte: UInt8) -> String {
    let digits = Array("0123456789abcdef")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
}
