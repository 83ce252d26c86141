/// Reads pcapng files (Wireshark, `tshark`, `dumpcap`): sections of blocks,
/// each section in its own byte order, interfaces with their own link type
/// and timestamp resolution. Enhanced, simple and obsolete packet blocks
/// are read; packets of interfaces of other link types are skipped and
/// counted; other blocks are skipped. An enhanced packet block's drop
/// count (`epb_dropcount`) adds to the packets the capture says it dropped.
final class PCAPNGReader: CapturePacketReader {
    private struct Interface {
        var linkType: CaptureLinkType?
        var rawLinkType: UInt32
        /// Timestamp units per second as a power: 10^-n (`decimal`) or 2^-n.
        var resolution: UInt8 = 6
        var decimal = true
        var offsetSeconds: Int64 = 0
    }

    /// The largest block accepted.
    static let maximumBlockLength = 16 << 20

    private let source: CaptureByteSource
    private var bigEndian = false
    private var interfaces: [Interface] = []
    private var lastTime: UInt64 = 0
    private var drops: UInt64 = 0
    private var sawSupportedInterface = false
    private(set) var endedInsideRecord = false
    private(set) var skippedRecords = 0

    /// Prepares to read `source` (positioned at its start, a section header block).
    init(source: CaptureByteSource) {
        self.source = source
    }

    func next() throws(CaptureFileError) -> CapturedPacket? {
        while true {
            if try source.isExhausted() {
                if !sawSupportedInterface, let first = interfaces.first {
                    throw CaptureFileError(
                        .unsupported,
                        "\(source.name): "
                            + CaptureLinkType.unsupportedDescription(first.rawLinkType))
                }
                return nil
            }
            guard try source.require(12) else {
                endedInsideRecord = true
                return nil
            }
            let blockOffset = source.offset
            let type = source.uint32(at: 0, bigEndian: false)
            if type == 0x0A0D_0D0A {
                // A section header: its byte-order magic decides how everything in it is read.
                let magic = source.uint32(at: 8, bigEndian: false)
                switch magic {
                case 0x1A2B_3C4D: bigEndian = false
                case 0x4D3C_2B1A: bigEndian = true
                default:
                    throw CaptureFileError(
                        .malformed,
                        "\(source.name): the section header at byte \(blockOffset) "
                            + "has no valid byte-order magic")
                }
                interfaces = []
            } else if blockOffset == 0 {
                throw CaptureFileError(.malformed, "\(source.name): a pcapng file must start with a section header")
            }
            let blockType = source.uint32(at: 0, bigEndian: bigEndian)
            let length = Int(source.uint32(at: 4, bigEndian: bigEndian))
            guard length >= 12, length % 4 == 0, length <= Self.maximumBlockLength else {
                throw CaptureFileError(
                    .malformed,
                    "\(source.name): the block at byte \(blockOffset) has length \(length) "
                        + "(expected a multiple of 4 from 12 to \(Self.maximumBlockLength); the file is damaged)")
            }
            guard try source.require(length) else {
                endedInsideRecord = true
                return nil
            }
            guard Int(source.uint32(at: length - 4, bigEndian: bigEndian)) == length else {
                throw CaptureFileError(
                    .malformed,
                    "\(source.name): the block at byte \(blockOffset) does not end "
                        + "with its length \(length) (the file is damaged)")
            }
            defer { source.skip(length) }
            switch blockType {
            case 0x0A0D_0D0A:
                let major = source.uint16(at: 12, bigEndian: bigEndian)
                guard major == 1 else {
                    throw CaptureFileError(
                        .unsupported, "\(source.name): pcapng version \(major) is not supported (only 1)")
                }
            case 1:
                guard length >= 20 else { throw malformed("interface description", at: blockOffset) }
                let raw = UInt32(source.uint16(at: 8, bigEndian: bigEndian))
                var interface = Interface(linkType: CaptureLinkType(pcapLinkType: raw), rawLinkType: raw)
                if interface.linkType != nil { sawSupportedInterface = true }
                readOptions(from: 16, to: length - 4) { code, at, count in
                    if code == 9, count >= 1 {
                        let value = source.peek(at)
                        interface.decimal = value & 0x80 == 0
                        interface.resolution = value & 0x7F
                    } else if code == 14, count >= 8 {
                        interface.offsetSeconds = Int64(bitPattern: source.uint64(at: at, bigEndian: bigEndian))
                    }
                }
                interfaces.append(interface)
            case 6, 2:
                guard length >= 32 else { throw malformed("packet", at: blockOffset) }
                let id =
                    blockType == 6
                    ? Int(source.uint32(at: 8, bigEndian: bigEndian))
                    : Int(source.uint16(at: 8, bigEndian: bigEndian))
                let stamp =
                    UInt64(source.uint32(at: 12, bigEndian: bigEndian)) << 32
                    | UInt64(source.uint32(at: 16, bigEndian: bigEndian))
                let captured = Int(source.uint32(at: 20, bigEndian: bigEndian))
                let original = Int(source.uint32(at: 24, bigEndian: bigEndian))
                guard captured <= length - 32 else {
                    throw CaptureFileError(
                        .malformed,
                        "\(source.name): the packet block at byte \(blockOffset) "
                            + "claims \(captured) bytes in a block of \(length)")
                }
                guard interfaces.indices.contains(id) else {
                    throw CaptureFileError(
                        .malformed,
                        "\(source.name): the packet block at byte \(blockOffset) "
                            + "refers to interface \(id), which was not described")
                }
                if blockType == 2 {
                    drops += UInt64(source.uint16(at: 10, bigEndian: bigEndian))
                } else {
                    let optionsStart = 28 + (captured + 3) / 4 * 4
                    readOptions(from: optionsStart, to: length - 4) { code, at, count in
                        if code == 4, count >= 8 {
                            let sum = drops.addingReportingOverflow(source.uint64(at: at, bigEndian: bigEndian))
                            drops = sum.overflow ? .max : sum.partialValue
                        }
                    }
                }
                guard drops <= Self.maximumDrops else {
                    throw CaptureFileError(
                        .malformed,
                        "\(source.name): the packet block at byte \(blockOffset) says the capture dropped "
                            + "\(drops) packets in all, more than any capture can (at most 2^46)")
                }
                let interface = interfaces[id]
                guard let linkType = interface.linkType else {
                    skippedRecords += 1
                    continue
                }
                let time = try Self.nanoseconds(stamp, interface: interface)
                lastTime = time
                var packet = CaptureLinkType.packet(
                    linkType: linkType, bytes: source.bytes(at: 28, count: captured),
                    originalLength: max(original, captured), time: time)
                packet.cumulativeDrops = drops
                return packet
            case 3:
                guard length >= 16 else { throw malformed("simple packet", at: blockOffset) }
                guard let interface = interfaces.first else {
                    throw CaptureFileError(
                        .malformed,
                        "\(source.name): a simple packet block at byte \(blockOffset) "
                            + "comes before any interface description")
                }
                guard let linkType = interface.linkType else {
                    skippedRecords += 1
                    continue
                }
                let original = Int(source.uint32(at: 8, bigEndian: bigEndian))
                let captured = min(original, length - 16)
                var packet = CaptureLinkType.packet(
                    linkType: linkType, bytes: source.bytes(at: 12, count: captured),
                    originalLength: original, time: lastTime)
                packet.cumulativeDrops = drops
                return packet
            default:
                continue
            }
        }
    }

    private func malformed(_ what: String, at offset: UInt64) -> CaptureFileError {
        CaptureFileError(.malformed, "\(source.name): the \(what) block at byte \(offset) is too short")
    }

    /// Calls `body` with each option (code, offset of its value, length) in `start..<end` of the current block.
    private func readOptions(from start: Int, to end: Int, _ body: (UInt16, Int, Int) -> Void) {
        var at = start
        while at + 4 <= end {
            let code = source.uint16(at: at, bigEndian: bigEndian)
            let count = Int(source.uint16(at: at + 2, bigEndian: bigEndian))
            if code == 0 || at + 4 + count > end { return }
            body(code, at + 4, count)
            at += 4 + (count + 3) / 4 * 4
        }
    }

    /// The most packets a capture may say it dropped (`epb_dropcount`
    /// summed): the largest loss a recording counts.
    static let maximumDrops: UInt64 = 1 << 46

    /// A timestamp in the interface's units as nanoseconds since the Unix epoch.
    ///
    /// - Throws: `CaptureFileError` (`.malformed`) for a time past what a
    ///   recording holds (`CapturedPacket.latestTime`), its offset included.
    private static func nanoseconds(_ stamp: UInt64, interface: Interface) throws(CaptureFileError) -> UInt64 {
        var value: UInt64
        let power = Int(interface.resolution)
        if interface.decimal {
            if power <= 9 {
                var scale: UInt64 = 1
                for _ in 0..<(9 - power) { scale *= 10 }
                let (product, overflow) = stamp.multipliedReportingOverflow(by: scale)
                value = overflow ? UInt64.max : product
            } else {
                var scale: UInt64 = 1
                for _ in 0..<min(power - 9, 19) { scale *= 10 }
                value = stamp / scale
            }
        } else {
            let wide = stamp.multipliedFullWidth(by: 1_000_000_000)
            let shift = min(power, 63)
            let high = UInt64(wide.high)
            if shift == 0 {
                value = high == 0 ? wide.low : UInt64.max
            } else if high >> shift != 0 {
                value = UInt64.max
            } else {
                value = (high << (64 - shift)) | (wide.low >> shift)
            }
        }
        if interface.offsetSeconds != 0 {
            let offset = interface.offsetSeconds.multipliedReportingOverflow(by: 1_000_000_000)
            guard !offset.overflow else { throw CapturedPacket.timeOutOfRange }
            if offset.partialValue >= 0 {
                let sum = value.addingReportingOverflow(UInt64(offset.partialValue))
                guard !sum.overflow else { throw CapturedPacket.timeOutOfRange }
                value = sum.partialValue
            } else {
                value -= min(value, offset.partialValue.magnitude)
            }
        }
        guard value <= CapturedPacket.latestTime else { throw CapturedPacket.timeOutOfRange }
        return value
    }
}
