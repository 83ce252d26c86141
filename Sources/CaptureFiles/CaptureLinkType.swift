import ByteCursor

/// The Bluetooth link types of capture files this build reads, and how
/// their packets' leading bytes say what a packet is.
///
/// - btsnoop datalinks: 1001 (HCI UART without the H4 type byte, the type
///   coming from the record's flags), 1002 (H4), 2001 (Linux monitor).
/// - pcap and pcapng link types: 187 (H4), 201 (H4 with a 4-byte direction
///   pseudo-header), 254 (Linux monitor), 256 (LE link layer with a
///   10-byte pseudo-header, from over-the-air sniffers).
public enum CaptureLinkType: Sendable, Hashable {
    /// btsnoop 1001: HCI without a type byte.
    case hciUnencapsulated
    /// btsnoop 1002 or LINKTYPE 187: H4 (a type byte first).
    case h4
    /// LINKTYPE 201: H4 after a big-endian 32-bit direction.
    case h4WithPseudoHeader
    /// btsnoop 2001 (opcode in the record flags) or LINKTYPE 254 (4-byte pseudo-header).
    case linuxMonitor
    /// LINKTYPE 256: LE link layer after a 10-byte pseudo-header.
    case lowEnergyLinkLayer

    /// The link type of a pcap or pcapng link-type number, or `nil`.
    public init?(pcapLinkType: UInt32) {
        switch pcapLinkType {
        case 187: self = .h4
        case 201: self = .h4WithPseudoHeader
        case 254: self = .linuxMonitor
        case 256: self = .lowEnergyLinkLayer
        default: return nil
        }
    }

    /// A description of a pcap link-type number this build does not read.
    static func unsupportedDescription(_ linkType: UInt32) -> String {
        let known: [UInt32: String] = [
            1: "Ethernet", 105: "IEEE 802.11", 113: "Linux cooked", 127: "802.11 radiotap",
            195: "IEEE 802.15.4", 251: "Bluetooth LE LL (no pseudo-header)",
            255: "Bluetooth BR/EDR baseband", 272: "nRF sniffer for Bluetooth LE",
        ]
        let name = known[linkType].map { " (\($0))" } ?? ""
        return "link type \(linkType)\(name) is not a Bluetooth HCI link type this build reads "
            + "(supported: 187, 201 HCI H4 with phdr, 254 Linux monitor, 256 LE link layer with phdr)"
    }

    /// The packet in `bytes` of a pcap/pcapng record of this link type.
    static func packet(linkType: CaptureLinkType, bytes: [UInt8], originalLength: Int, time: UInt64) -> CapturedPacket {
        switch linkType {
        case .h4:
            guard let type = bytes.first else {
                return CapturedPacket(kind: .other, direction: .unknown, time: time, bytes: [], originalLength: 0)
            }
            let kind = h4Kind(type)
            let direction: CapturedPacket.Direction = kind == .command ? .sent : kind == .event ? .received : .unknown
            return CapturedPacket(
                kind: kind, direction: direction, time: time, bytes: Array(bytes.dropFirst()),
                originalLength: max(0, originalLength - 1))
        case .h4WithPseudoHeader:
            // The direction flag (big-endian), then the H4 type byte.
            guard bytes.count >= 5, let flag = ByteCursor(bytes).peek(UInt32.self, .big) else {
                return CapturedPacket(
                    kind: .other, direction: .unknown, time: time, bytes: [],
                    originalLength: max(0, originalLength - 5))
            }
            return CapturedPacket(
                kind: h4Kind(bytes[4]), direction: flag & 1 == 0 ? .sent : .received, time: time,
                bytes: Array(bytes[5...]), originalLength: max(0, originalLength - 5))
        case .linuxMonitor:
            // Adapter index and opcode, big-endian.
            let header = ByteCursor(bytes)
            guard let adapter = header.peek(UInt16.self, .big), let opcode = header.peek(UInt16.self, .big, at: 2)
            else {
                return CapturedPacket(
                    kind: .other, direction: .unknown, time: time, bytes: [],
                    originalLength: max(0, originalLength - 4))
            }
            let (kind, direction) = monitorKind(opcode)
            return CapturedPacket(
                kind: kind, direction: direction, time: time, adapter: adapter,
                bytes: Array(bytes[4...]), originalLength: max(0, originalLength - 4))
        case .lowEnergyLinkLayer:
            // The pseudo-header's flags are its last two bytes (little-endian).
            guard bytes.count >= 10, let flags = ByteCursor(bytes).peek(UInt16.self, at: 8) else {
                return CapturedPacket(
                    kind: .other, direction: .unknown, time: time, bytes: [],
                    originalLength: max(0, originalLength - 10))
            }
            let direction: CapturedPacket.Direction =
                switch (flags >> 7) & 7 {
                case 2: .sent
                case 3: .received
                default: .unknown
                }
            return CapturedPacket(
                kind: .linkLayer(flags: flags), direction: direction, time: time,
                bytes: Array(bytes[10...]), originalLength: max(0, originalLength - 10))
        case .hciUnencapsulated:
            // Only in btsnoop, whose reader types these packets from the record flags.
            return CapturedPacket(
                kind: .other, direction: .unknown, time: time, bytes: bytes,
                originalLength: originalLength)
        }
    }

    /// The kind of an H4 packet-type byte.
    static func h4Kind(_ type: UInt8) -> CapturedPacket.Kind {
        switch type {
        case 1: .command
        case 2: .acl
        case 3: .sco
        case 4: .event
        case 5: .iso
        default: .other
        }
    }

    /// The kind and direction of a Linux monitor opcode.
    static func monitorKind(_ opcode: UInt16) -> (CapturedPacket.Kind, CapturedPacket.Direction) {
        switch opcode {
        case 2: (.command, .sent)
        case 3: (.event, .received)
        case 4: (.acl, .sent)
        case 5: (.acl, .received)
        case 6: (.sco, .sent)
        case 7: (.sco, .received)
        case 18: (.iso, .sent)
        case 19: (.iso, .received)
        default: (.other, .unknown)
        }
    }
}
