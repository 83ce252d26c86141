/// Writes HCI packets as capture files: btsnoop (datalinks 1001, 1002,
/// 2001), pcapng and classic pcap (link types 201 and 254), so the readers
/// are tested against files made to the formats' specifications.
enum CaptureFileWriter {
    enum Format: CaseIterable, CustomStringConvertible {
        case btsnoopUART, btsnoopH4, btsnoopMonitor, pcapngH4, pcapngMonitor, pcapH4, pcapMonitor

        var description: String {
            switch self {
            case .btsnoopUART: "btsnoop 1001"
            case .btsnoopH4: "btsnoop 1002"
            case .btsnoopMonitor: "btsnoop 2001"
            case .pcapngH4: "pcapng 201"
            case .pcapngMonitor: "pcapng 254"
            case .pcapH4: "pcap 201"
            case .pcapMonitor: "pcap 254"
            }
        }
    }

    static func write(_ packets: [HCITrafficBuilder.Packet], as format: Format, drops: [Int: UInt32] = [:]) -> [UInt8] {
        switch format {
        case .btsnoopUART: btsnoop(packets, datalink: 1001, drops: drops)
        case .btsnoopH4: btsnoop(packets, datalink: 1002, drops: drops)
        case .btsnoopMonitor: btsnoop(packets, datalink: 2001, drops: drops)
        case .pcapngH4: pcapng(packets, linkType: 201)
        case .pcapngMonitor: pcapng(packets, linkType: 254)
        case .pcapH4: pcap(packets, linkType: 201)
        case .pcapMonitor: pcap(packets, linkType: 254)
        }
    }

    static func be32(_ value: UInt32) -> [UInt8] {
        [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> UInt32($0)) }
    }
    static func le32(_ value: UInt32) -> [UInt8] {
        [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: value >> UInt32($0)) }
    }
    static func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }

    /// The monitor opcode of a packet.
    static func monitorOpcode(_ packet: HCITrafficBuilder.Packet) -> UInt16 {
        switch (packet.type, packet.received) {
        case (1, _): 2
        case (4, _): 3
        case (2, false): 4
        case (2, true): 5
        default: 12
        }
    }

    /// btsnoop; `drops` sets the cumulative drop count from a packet index on.
    static func btsnoop(_ packets: [HCITrafficBuilder.Packet], datalink: UInt32, drops: [Int: UInt32] = [:]) -> [UInt8]
    {
        var out = Array("btsnoop\0".utf8) + be32(1) + be32(datalink)
        var cumulative: UInt32 = 0
        for (index, packet) in packets.enumerated() {
            if let set = drops[index] { cumulative = set }
            var payload = packet.bytes
            var flags: UInt32
            switch datalink {
            case 1001:
                flags = (packet.received ? 1 : 0) | (packet.type == 2 ? 0 : 2)
            case 1002:
                payload = [packet.type] + payload
                flags = (packet.received ? 1 : 0) | (packet.type == 2 ? 0 : 2)
            default:
                flags = UInt32(packet.adapter) << 16 | UInt32(monitorOpcode(packet))
            }
            let original = UInt32((packet.originalLength ?? packet.bytes.count) + payload.count - packet.bytes.count)
            let micros = packet.time / 1000 + 0x00DC_DDB3_0F2F_8000
            out += be32(original) + be32(UInt32(payload.count)) + be32(flags) + be32(cumulative)
            out += be32(UInt32(micros >> 32)) + be32(UInt32(truncatingIfNeeded: micros))
            out += payload
        }
        return out
    }

    /// A packet's bytes behind the link type's pseudo-header.
    static func linkPayload(_ packet: HCITrafficBuilder.Packet, linkType: UInt32) -> [UInt8] {
        if linkType == 201 { return be32(packet.received ? 1 : 0) + [packet.type] + packet.bytes }
        return [UInt8(packet.adapter >> 8), UInt8(packet.adapter & 0xFF)]
            + [UInt8(monitorOpcode(packet) >> 8), UInt8(monitorOpcode(packet) & 0xFF)] + packet.bytes
    }

    /// pcapng, little-endian, one interface, microsecond timestamps (nanosecond with `nanoseconds`).
    static func pcapng(_ packets: [HCITrafficBuilder.Packet], linkType: UInt32, nanoseconds: Bool = false) -> [UInt8] {
        func block(_ type: UInt32, _ body: [UInt8]) -> [UInt8] {
            let padded = body + Array(repeating: 0, count: (4 - body.count % 4) % 4)
            let length = UInt32(padded.count + 12)
            return le32(type) + le32(length) + padded + le32(length)
        }
        var out = block(0x0A0D_0D0A, le32(0x1A2B_3C4D) + le16(1) + le16(0) + Array(repeating: 0xFF, count: 8))
        var options: [UInt8] = []
        if nanoseconds { options = le16(9) + le16(1) + [9, 0, 0, 0] }
        out += block(1, le16(UInt16(linkType)) + le16(0) + le32(0) + options + (options.isEmpty ? [] : [0, 0, 0, 0]))
        for packet in packets {
            let payload = linkPayload(packet, linkType: linkType)
            let stamp = nanoseconds ? packet.time : packet.time / 1000
            let original = UInt32((packet.originalLength ?? packet.bytes.count) + payload.count - packet.bytes.count)
            out += block(
                6,
                le32(0) + le32(UInt32(stamp >> 32)) + le32(UInt32(truncatingIfNeeded: stamp))
                    + le32(UInt32(payload.count)) + le32(original) + payload)
        }
        return out
    }

    /// Classic pcap, little-endian, microseconds.
    static func pcap(_ packets: [HCITrafficBuilder.Packet], linkType: UInt32) -> [UInt8] {
        var out = le32(0xA1B2_C3D4) + le16(2) + le16(4) + le32(0) + le32(0) + le32(65535) + le32(linkType)
        for packet in packets {
            let payload = linkPayload(packet, linkType: linkType)
            let original = UInt32((packet.originalLength ?? packet.bytes.count) + payload.count - packet.bytes.count)
            out +=
                le32(UInt32(packet.time / 1_000_000_000)) + le32(UInt32(packet.time / 1000 % 1_000_000))
                + le32(UInt32(payload.count)) + le32(original) + payload
        }
        return out
    }
}
