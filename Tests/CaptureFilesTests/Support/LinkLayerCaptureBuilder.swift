import Devices

/// Builds an over-the-air LE capture (pcapng, `LINKTYPE_BLUETOOTH_LE_LL_WITH_PHDR`):
/// advertising PDUs, a `CONNECT_IND`, data PDUs carrying L2CAP fragments in
/// both directions, a retransmission, `LL_TERMINATE_IND`.
struct LinkLayerCaptureBuilder {
    /// The packets: pseudo-header and link-layer bytes, and the time.
    private(set) var packets: [(time: UInt64, bytes: [UInt8])] = []
    var clock: UInt64 = 1_700_000_000_000_000_000
    let accessAddress: UInt32 = 0x5065_A1B2
    private var sequence: [Bool: UInt8] = [false: 0, true: 0]

    private mutating func append(_ linkLayer: [UInt8], flags: UInt16) -> UInt64 {
        let pseudo: [UInt8] =
            [37, 0xC4, 0x9C, 0] + CaptureFileWriter.le32(0x8E89_BED6)
            + CaptureFileWriter.le16(flags)
        let time = clock
        packets.append((time, pseudo + linkLayer + [0, 0, 0]))
        clock += 1000
        return time
    }

    mutating func advertise(_ address: [UInt8], data: [UInt8]) {
        let payload = Array(address.reversed()) + data
        _ = append(CaptureFileWriter.le32(0x8E89_BED6) + [0x40, UInt8(payload.count)] + payload, flags: 0x0C11)
    }

    mutating func connect(central: [UInt8], peripheral: [UInt8]) {
        let payload =
            Array(central.reversed()) + Array(peripheral.reversed()) + CaptureFileWriter.le32(accessAddress)
            + [0x55, 0x55, 0x55, 2] + CaptureFileWriter.le16(0) + CaptureFileWriter.le16(24)
            + CaptureFileWriter.le16(0) + CaptureFileWriter.le16(400) + [0xFF, 0xFF, 0xFF, 0xFF, 0x1F, 0x05]
        _ = append(CaptureFileWriter.le32(0x8E89_BED6) + [0xC5, UInt8(payload.count)] + payload, flags: 0x0C11)
    }

    /// One data PDU; returns its time.
    @discardableResult
    mutating func data(llid: UInt8, _ payload: [UInt8], fromPeripheral: Bool, repeatIt: Bool = false) -> UInt64 {
        let sn = sequence[fromPeripheral]!
        let header = llid | sn << 3
        let flags: UInt16 = 0x0C11 | (fromPeripheral ? 3 : 2) << 7
        let bytes = CaptureFileWriter.le32(accessAddress) + [header, UInt8(payload.count)] + payload
        var time = append(bytes, flags: flags)
        if repeatIt { time = append(bytes, flags: flags) }
        sequence[fromPeripheral] = sn ^ 1
        return time
    }

    /// An ATT PDU in an L2CAP frame cut into `size`-byte data PDUs; returns the time of the last.
    @discardableResult
    mutating func send(_ pdu: [UInt8], fromPeripheral: Bool, size: Int = 27, retransmitFirst: Bool = false) -> UInt64 {
        let frame = CaptureFileWriter.le16(UInt16(pdu.count)) + [0x04, 0x00] + pdu
        var at = 0
        var time: UInt64 = 0
        while at < frame.count {
            let piece = Array(frame[at..<min(frame.count, at + size)])
            time = data(
                llid: at == 0 ? 2 : 1, piece, fromPeripheral: fromPeripheral, repeatIt: retransmitFirst && at == 0)
            at += size
            // An empty PDU in between, as the link keeps polling.
            data(llid: 1, [], fromPeripheral: !fromPeripheral)
        }
        return time
    }

    mutating func terminate() {
        data(llid: 3, [0x02, 0x13], fromPeripheral: false)
    }

    /// The capture as pcapng.
    func pcapng() -> [UInt8] {
        func block(_ type: UInt32, _ body: [UInt8]) -> [UInt8] {
            let padded = body + Array(repeating: 0, count: (4 - body.count % 4) % 4)
            let length = UInt32(padded.count + 12)
            return CaptureFileWriter.le32(type) + CaptureFileWriter.le32(length) + padded
                + CaptureFileWriter.le32(length)
        }
        var out = block(
            0x0A0D_0D0A,
            CaptureFileWriter.le32(0x1A2B_3C4D) + CaptureFileWriter.le16(1)
                + CaptureFileWriter.le16(0) + Array(repeating: 0xFF, count: 8))
        out += block(1, CaptureFileWriter.le16(256) + CaptureFileWriter.le16(0) + CaptureFileWriter.le32(0))
        for (time, bytes) in packets {
            let stamp = time / 1000
            out += block(
                6,
                CaptureFileWriter.le32(0) + CaptureFileWriter.le32(UInt32(stamp >> 32))
                    + CaptureFileWriter.le32(UInt32(truncatingIfNeeded: stamp))
                    + CaptureFileWriter.le32(UInt32(bytes.count))
                    + CaptureFileWriter.le32(UInt32(bytes.count)) + bytes)
        }
        return out
    }
}
