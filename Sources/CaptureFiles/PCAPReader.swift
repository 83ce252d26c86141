/// Reads classic pcap files (microsecond or nanosecond, either byte
/// order) of a Bluetooth link type (``CaptureLinkType``).
final class PCAPReader: CapturePacketReader {
    private let source: CaptureByteSource
    private let bigEndian: Bool
    private let nanosecond: Bool
    private let linkType: CaptureLinkType
    private(set) var endedInsideRecord = false
    private(set) var skippedRecords = 0

    /// Reads the header of `source` (positioned at its start).
    init(source: CaptureByteSource) throws(CaptureFileError) {
        self.source = source
        guard try source.require(24) else {
            throw CaptureFileError(.malformed, "\(source.name): the pcap header is cut short")
        }
        let magic = source.uint32(at: 0, bigEndian: true)
        switch magic {
        case 0xA1B2_C3D4: (bigEndian, nanosecond) = (true, false)
        case 0xD4C3_B2A1: (bigEndian, nanosecond) = (false, false)
        case 0xA1B2_3C4D: (bigEndian, nanosecond) = (true, true)
        default: (bigEndian, nanosecond) = (false, true)
        }
        let major = source.uint16(at: 4, bigEndian: bigEndian)
        guard major == 2 else {
            throw CaptureFileError(.unsupported, "\(source.name): pcap version \(major) is not supported (only 2)")
        }
        let network = source.uint32(at: 20, bigEndian: bigEndian) & 0x0FFF_FFFF
        guard let linkType = CaptureLinkType(pcapLinkType: network) else {
            throw CaptureFileError(.unsupported, "\(source.name): " + CaptureLinkType.unsupportedDescription(network))
        }
        self.linkType = linkType
        source.skip(24)
    }

    func next() throws(CaptureFileError) -> CapturedPacket? {
        if try source.isExhausted() { return nil }
        guard try source.require(16) else {
            endedInsideRecord = true
            return nil
        }
        let recordOffset = source.offset
        let seconds = UInt64(source.uint32(at: 0, bigEndian: bigEndian))
        let fraction = UInt64(source.uint32(at: 4, bigEndian: bigEndian))
        let included = Int(source.uint32(at: 8, bigEndian: bigEndian))
        let original = Int(source.uint32(at: 12, bigEndian: bigEndian))
        guard included <= CaptureByteSource.maximumRecordLength else {
            throw CaptureFileError(
                .malformed,
                "\(source.name): the record at byte \(recordOffset) claims "
                    + "\(included) bytes (more than \(CaptureByteSource.maximumRecordLength); the file is damaged)")
        }
        guard try source.require(16 + included) else {
            endedInsideRecord = true
            return nil
        }
        let bytes = source.bytes(at: 16, count: included)
        source.skip(16 + included)
        let time = seconds * 1_000_000_000 + (nanosecond ? fraction : fraction * 1000)
        return CaptureLinkType.packet(
            linkType: linkType, bytes: bytes, originalLength: max(original, included),
            time: time)
    }
}
