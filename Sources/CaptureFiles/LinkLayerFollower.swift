import ByteCursor

/// Follows Bluetooth LE link-layer packets of an over-the-air sniffer
/// (`LINKTYPE_BLUETOOTH_LE_LL_WITH_PHDR`): advertisements, `CONNECT_IND`
/// (access address → peripheral address), data PDUs reassembled into L2CAP
/// frames with retransmissions dropped, `LL_TERMINATE_IND`. Encrypted
/// connections cannot be read; the first encrypted data becomes a loss.
struct LinkLayerFollower {
    /// What a packet yields.
    enum Item {
        /// An event as is (an advertisement).
        case event(CaptureEvent)
        /// A connection was set up on `link`.
        case connected(CaptureLink, CapturePeer, UInt64)
        /// The connection on `link` was terminated.
        case disconnected(CaptureLink, UInt64)
        /// An ATT PDU; `fromPeripheral` when the peripheral (the device) sent it.
        case attribute(CaptureLink, fromPeripheral: Bool, payload: [UInt8], time: UInt64)
        /// A frame that could not be reassembled.
        case broken(CaptureLink, String, UInt64)
    }

    private struct Connection {
        var link: CaptureLink
        var encrypted = false
        var reportedEncryption = false
        var lastSequence: [Bool: (sn: UInt8, payload: [UInt8])] = [:]
    }

    /// The adapter number links over the air are given (there is no controller).
    static let airAdapter: UInt16 = 0xFFFF
    private static let advertisingAccessAddress: UInt32 = 0x8E89_BED6

    private var connections: [UInt32: Connection] = [:]
    private var nextHandle: UInt16 = 1
    private var reassembler = L2CAPReassembler()

    mutating func add(_ packet: CapturedPacket, flags: UInt16, _ emit: (Item) -> Void) {
        let bytes = packet.bytes
        // Access address, 2-byte header, payload, 3-byte CRC.
        guard bytes.count >= 6, let access = ByteCursor(bytes).peek(UInt32.self) else { return }
        if flags & 0x0400 != 0, flags & 0x0800 == 0 { return }  // CRC checked and bad
        let header = bytes[4]
        let length = Int(bytes[5])
        guard 6 + length <= bytes.count else { return }
        let payload = bytes[6..<(6 + length)]
        if access == Self.advertisingAccessAddress {
            advertising(header: header, payload: payload, time: packet.time, emit)
            return
        }
        guard var connection = connections[access] else { return }
        var terminated = false
        defer { connections[access] = terminated ? nil : connection }
        let llid = header & 3
        let sn = (header >> 3) & 1
        let direction = packet.direction
        if llid == 3 {
            switch payload.first {
            case 0x02:
                terminated = true
                _ = reassembler.drop(connection.link)
                emit(.disconnected(connection.link, packet.time))
                return
            case 0x03, 0x05:
                connection.encrypted = true
            default:
                break
            }
            return
        }
        guard length > 0 else { return }
        if connection.encrypted {
            if !connection.reportedEncryption {
                connection.reportedEncryption = true
                emit(
                    .broken(
                        connection.link, "the connection is encrypted: its data cannot be read over the air",
                        packet.time))
            }
            return
        }
        let fromPeripheral: Bool
        switch direction {
        case .received: fromPeripheral = true
        case .sent: fromPeripheral = false
        case .unknown:
            // Guess from an ATT opcode at the start of a frame: requests and commands come from the central.
            if llid == 2, payload.count >= 5 {
                let opcode = payload[payload.startIndex + 4]
                fromPeripheral = !((opcode & 1 == 0 && opcode <= 0x20) || opcode == 0x52 || opcode == 0xD2)
            } else {
                fromPeripheral = true
            }
        }
        if let last = connection.lastSequence[fromPeripheral], last.sn == sn, last.payload.elementsEqual(payload) {
            return  // a retransmission
        }
        connection.lastSequence[fromPeripheral] = (sn, Array(payload))
        let boundary: UInt16 = llid == 2 ? 0x2000 : 0x1000
        let handleField = connection.link.handle | boundary
        let acl =
            [UInt8(handleField & 0xFF), UInt8(handleField >> 8), UInt8(length & 0xFF), UInt8(length >> 8)]
            + payload
        guard
            let step = reassembler.add(
                acl, adapter: Self.airAdapter, received: fromPeripheral,
                truncated: packet.isTruncated)
        else { return }
        if let reason = step.broken { emit(.broken(step.link, reason, packet.time)) }
        if let (channel, frame) = step.frame, channel == 4 {
            emit(.attribute(step.link, fromPeripheral: fromPeripheral, payload: frame, time: packet.time))
        }
    }

    private mutating func advertising(header: UInt8, payload: ArraySlice<UInt8>, time: UInt64, _ emit: (Item) -> Void) {
        let type = header & 0x0F
        let txRandom = header & 0x40 != 0
        let rxRandom = header & 0x80 != 0
        let start = payload.startIndex
        switch type {
        case 0, 2, 4, 6:
            guard payload.count >= 6 else { return }
            let peer = CapturePeer(
                address: CapturePeer.address(payload[start..<(start + 6)]),
                addressType: txRandom ? "random" : "public")
            emit(.event(.advertisement(peer: peer, data: AdvertisingData(payload[(start + 6)...]), time: time)))
        case 5:
            // CONNECT_IND: InitA, AdvA, then the access address of the connection.
            guard payload.count >= 16, let access = ByteCursor(payload).peek(UInt32.self, at: 12) else { return }
            let peer = CapturePeer(
                address: CapturePeer.address(payload[(start + 6)..<(start + 12)]),
                addressType: rxRandom ? "random" : "public")
            let link = CaptureLink(adapter: Self.airAdapter, handle: nextHandle)
            nextHandle = nextHandle % 0x0EFF + 1
            if let old = connections[access] { _ = reassembler.drop(old.link) }
            connections[access] = Connection(link: link)
            emit(.connected(link, peer, time))
        default:
            break
        }
    }
}
