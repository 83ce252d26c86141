import ByteCursor
import Devices

/// Follows a capture's HCI traffic and says what it means as
/// ``CaptureEvent``s: advertising reports, LE connections and
/// disconnections (connection handle → peer address), ATT on the LE
/// attribute channel (CID 4) after L2CAP reassembly — notifications,
/// indications, multiple-handle notifications, reads and writes — and the
/// GATT discovery responses that tell each handle's UUID.
///
/// Values are those of the remote device's GATT server: ATT traffic the
/// controller delivered to the host (or, over the air, the peripheral sent).
///
/// Not `Sendable`: an analyzer belongs to the task reading the capture.
public struct HCITrafficAnalyzer {
    private struct Request {
        var opcode: UInt8
        var handle: UInt16
        var uuid: CharacteristicUUID?
    }

    private struct LongRead {
        var handle: UInt16
        var bytes: [UInt8]
        var time: UInt64
    }

    private struct Connection {
        var peer: CapturePeer
        var mtu = 23
        /// The host's outstanding request (the device answers).
        var request: Request?
        var longRead: LongRead?
    }

    private var reassembler = L2CAPReassembler()
    private var connections: [CaptureLink: Connection] = [:]
    private var drops: UInt64 = 0
    private var linkLayer = LinkLayerFollower()
    /// The last link a value came on and its peer (values come in runs of one connection);
    /// forgotten whenever a connection opens or closes.
    private var cachedLink: CaptureLink?
    private var cachedPeer: CapturePeer?
    /// Changes whenever a connection opens or closes (a link's peer may then
    /// change): a caller that keeps what it looked up for a link's peer keeps
    /// it while this stays the same.
    private(set) var peerEpoch = 0
    /// Whether values keep their bytes; a survey, which only counts them, turns this off.
    var keepsValueBytes = true
    /// Packets seen.
    public private(set) var packetCount = 0

    /// A fresh analyzer.
    public init() {}

    /// Adds one packet; the events it yields are appended to `events`.
    public mutating func add(_ packet: CapturedPacket, into events: inout [CaptureEvent]) {
        packetCount += 1
        if let cumulative = packet.cumulativeDrops, cumulative > drops {
            let count = cumulative - drops
            drops = cumulative
            events.append(
                .loss(
                    peer: nil, time: packet.time, count: Int(clamping: count),
                    reason: "the capture dropped \(count) packet(s)"))
        } else if let cumulative = packet.cumulativeDrops, cumulative < drops {
            drops = cumulative
        }
        switch packet.kind {
        case .event:
            event(packet, into: &events)
        case .acl:
            acl(packet, into: &events)
        case .linkLayer(let flags):
            var items: [LinkLayerFollower.Item] = []
            linkLayer.add(packet, flags: flags) { items.append($0) }
            for item in items {
                switch item {
                case .event(let event):
                    events.append(event)
                case .connected(let link, let peer, let time):
                    cachedLink = nil
                    peerEpoch &+= 1
                    connections[link] = Connection(peer: peer)
                    events.append(.connected(link: link, peer: peer, time: time))
                case .disconnected(let link, let time):
                    let peer = connection(link).peer
                    closeConnection(link, time: time, into: &events)
                    events.append(.disconnected(link: link, peer: peer, reason: 0x13, time: time))
                case .attribute(let link, let fromPeripheral, let payload, let time):
                    attribute(payload, link: link, fromDevice: fromPeripheral, time: time, into: &events)
                case .broken(let link, let reason, let time):
                    events.append(.loss(peer: connection(link).peer, time: time, count: 1, reason: reason))
                }
            }
        default:
            break
        }
    }

    /// Adds one packet when it is the common case of a capture — one ACL
    /// packet holding a whole notification or indication, no frame under
    /// way, no new drops — and returns its value's link, handle and kind
    /// (what a survey counts; ``peer(on:)`` names the link's peer); `nil`,
    /// having done nothing, for any other packet, which ``add(_:into:)``
    /// then takes.
    ///
    /// The value's bytes are copied out with `keepingBytes` (an extraction), else left empty.
    @inline(__always)
    mutating func addValue(
        _ packet: CapturedPacket, keepingBytes: Bool
    ) -> (link: CaptureLink, handle: UInt16, kind: CaptureEvent.ValueKind, bytes: [UInt8])? {
        guard packet.kind == .acl, packet.direction == .received, !packet.isTruncated else { return nil }
        return packet.bytes.withUnsafeBytes { bytes in
            guard let value = addValue(acl: bytes, adapter: packet.adapter, cumulativeDrops: packet.cumulativeDrops)
            else { return nil }
            return (value.link, value.handle, value.kind, keepingBytes ? Array(bytes[value.value]) : [])
        }
    }

    /// ``addValue(_:keepingBytes:)`` for a received ACL packet the capture
    /// kept whole, read in place from the file's buffer (`acl`: from the
    /// ACL header on): a reader's fast path, which makes a packet only when
    /// this returns `nil`. The value is `acl[value]`, for the caller to copy.
    @inline(__always)
    mutating func addValue(
        acl: UnsafeRawBufferPointer, adapter: UInt16, cumulativeDrops: UInt64?
    ) -> (link: CaptureLink, handle: UInt16, kind: CaptureEvent.ValueKind, value: Range<Int>)? {
        guard reassembler.isIdle, cumulativeDrops == nil || cumulativeDrops == drops,
            let (link, handle, opcode, end) = Self.notification(in: acl)
        else { return nil }
        packetCount += 1
        return (
            CaptureLink(adapter: adapter, handle: link), handle,
            opcode == 0x1B ? .notification : .indication, 11..<end
        )
    }

    /// Ends the capture at `time`: frames never completed and long reads under way become events.
    public mutating func finish(at time: UInt64, into events: inout [CaptureEvent]) {
        for link in Set(reassembler.pendingLinks) {
            let count = reassembler.drop(link)
            events.append(
                .loss(
                    peer: connection(link).peer, time: time, count: count,
                    reason: "L2CAP frame never completed before the capture ended"))
        }
        for link in connections.keys.sorted(by: { ($0.adapter, $0.handle) < ($1.adapter, $1.handle) }) {
            flushLongRead(link, into: &events)
        }
    }

    // MARK: - Events

    private mutating func event(_ packet: CapturedPacket, into events: inout [CaptureEvent]) {
        let bytes = packet.bytes
        guard bytes.count >= 2 else { return }
        let code = bytes[0]
        let p = Array(bytes.dropFirst(2))
        switch code {
        case 0x05:
            // Disconnection Complete: status, handle, reason.
            guard p.count >= 4, p[0] == 0, let handle = ByteCursor(p).peek(UInt16.self, at: 1) else { return }
            let link = CaptureLink(adapter: packet.adapter, handle: handle & 0x0FFF)
            let peer = connection(link).peer
            closeConnection(link, time: packet.time, into: &events)
            events.append(.disconnected(link: link, peer: peer, reason: p[3], time: packet.time))
        case 0x03:
            // Connection Complete (BR/EDR): status, handle, address, link type, encryption.
            guard p.count >= 9, p[0] == 0, let handle = ByteCursor(p).peek(UInt16.self, at: 1) else { return }
            let link = CaptureLink(adapter: packet.adapter, handle: handle & 0x0FFF)
            let peer = CapturePeer(address: CapturePeer.address(p[3..<9]), addressType: "bredr")
            open(link, peer: peer, time: packet.time, into: &events)
        case 0x3E:
            guard let subevent = p.first else { return }
            leMeta(subevent, Array(p.dropFirst()), packet: packet, into: &events)
        default:
            break
        }
    }

    private mutating func leMeta(
        _ subevent: UInt8, _ p: [UInt8], packet: CapturedPacket,
        into events: inout [CaptureEvent]
    ) {
        switch subevent {
        case 0x01, 0x0A, 0x29:
            // LE (Enhanced) Connection Complete: status, handle, role, peer address type, peer address.
            guard p.count >= 11, p[0] == 0, let handle = ByteCursor(p).peek(UInt16.self, at: 1) else { return }
            let link = CaptureLink(adapter: packet.adapter, handle: handle & 0x0FFF)
            let peer = CapturePeer(address: CapturePeer.address(p[5..<11]), addressType: CapturePeer.addressType(p[4]))
            open(link, peer: peer, time: packet.time, into: &events)
        case 0x02:
            // LE Advertising Report: count, then per report: type, address type, address, length, data, RSSI.
            guard let count = p.first else { return }
            var at = 1
            for _ in 0..<count {
                guard at + 9 <= p.count else { return }
                let length = Int(p[at + 8])
                guard at + 9 + length <= p.count else { return }
                let peer = CapturePeer(
                    address: CapturePeer.address(p[(at + 2)..<(at + 8)]),
                    addressType: CapturePeer.addressType(p[at + 1]))
                events.append(
                    .advertisement(
                        peer: peer, data: AdvertisingData(p[(at + 9)..<(at + 9 + length)]),
                        time: packet.time))
                at += 10 + length
            }
        case 0x0D:
            // LE Extended Advertising Report: count, then 24 fixed bytes and the data per report.
            guard let count = p.first else { return }
            var at = 1
            for _ in 0..<count {
                guard at + 24 <= p.count else { return }
                let length = Int(p[at + 23])
                guard at + 24 + length <= p.count else { return }
                let peer = CapturePeer(
                    address: CapturePeer.address(p[(at + 3)..<(at + 9)]),
                    addressType: CapturePeer.addressType(p[at + 2]))
                events.append(
                    .advertisement(
                        peer: peer, data: AdvertisingData(p[(at + 24)..<(at + 24 + length)]),
                        time: packet.time))
                at += 24 + length
            }
        default:
            break
        }
    }

    private mutating func open(_ link: CaptureLink, peer: CapturePeer, time: UInt64, into events: inout [CaptureEvent])
    {
        if reassembler.drop(link) > 0 {
            events.append(
                .loss(
                    peer: connections[link]?.peer ?? peer, time: time, count: 1,
                    reason: "L2CAP frame never completed before the handle was reused"))
        }
        flushLongRead(link, into: &events)
        cachedLink = nil
        peerEpoch &+= 1
        connections[link] = Connection(peer: peer)
        events.append(.connected(link: link, peer: peer, time: time))
    }

    private mutating func closeConnection(_ link: CaptureLink, time: UInt64, into events: inout [CaptureEvent]) {
        let pending = reassembler.drop(link)
        let peer = connection(link).peer
        if pending > 0 {
            events.append(
                .loss(
                    peer: peer, time: time, count: pending,
                    reason: "L2CAP frame never completed before the disconnection"))
        }
        flushLongRead(link, into: &events)
        cachedLink = nil
        peerEpoch &+= 1
        connections[link] = nil
    }

    /// The connection on `link`, made up (peer of unknown address) when the capture did not show it opening.
    private mutating func connection(_ link: CaptureLink) -> Connection {
        if let known = connections[link] { return known }
        let made = Connection(peer: CapturePeer(unknownOn: link))
        connections[link] = made
        return made
    }

    /// The peer of the connection on `link` (made up, as by ``connection(_:)``, when unknown);
    /// the same until ``peerEpoch`` changes.
    mutating func peer(on link: CaptureLink) -> CapturePeer {
        if let cachedPeer, cachedLink == link { return cachedPeer }
        let peer = connection(link).peer
        cachedLink = link
        cachedPeer = peer
        return peer
    }

    // MARK: - ACL, L2CAP, ATT

    private mutating func acl(_ packet: CapturedPacket, into events: inout [CaptureEvent]) {
        guard packet.direction != .unknown,
            let step = reassembler.add(
                packet.bytes, adapter: packet.adapter,
                received: packet.direction == .received,
                truncated: packet.isTruncated)
        else {
            if packet.isTruncated {
                events.append(.loss(peer: nil, time: packet.time, count: 1, reason: "ACL packet cut by the capture"))
            }
            return
        }
        if let reason = step.broken {
            events.append(.loss(peer: connection(step.link).peer, time: packet.time, count: 1, reason: reason))
        }
        if let (channel, payload) = step.frame, channel == 4 {
            attribute(
                payload, link: step.link, fromDevice: packet.direction == .received, time: packet.time,
                into: &events)
        }
    }

    /// The connection handle, attribute handle, opcode and end of the value
    /// of an ACL packet that is one whole L2CAP frame on the attribute
    /// channel holding a notification (0x1B) or indication (0x1D); `nil` for
    /// any other packet.
    @inline(__always)
    private static func notification(
        in bytes: UnsafeRawBufferPointer
    ) -> (link: UInt16, handle: UInt16, opcode: UInt8, end: Int)? {
        // ACL header (4), L2CAP header (4), opcode and attribute handle (3).
        var cursor = ByteCursor(bytes)
        guard let header = try? cursor.read(UInt16.self), let declared = try? cursor.read(UInt16.self),
            let length = try? cursor.read(UInt16.self), let channel = try? cursor.read(UInt16.self),
            let opcode = try? cursor.readByte(), let handle = try? cursor.read(UInt16.self),
            (header >> 12) & 3 != 1, Int(declared) <= bytes.count - 4, Int(declared) == Int(length) + 4, length >= 3,
            channel == 4, opcode == 0x1B || opcode == 0x1D
        else { return nil }
        return (header & 0x0FFF, handle, opcode, 4 + Int(declared))
    }

    /// One ATT PDU on `link`; `fromDevice` when the remote device sent it.
    private mutating func attribute(
        _ pdu: [UInt8], link: CaptureLink, fromDevice: Bool, time: UInt64,
        into events: inout [CaptureEvent]
    ) {
        guard let opcode = pdu.first else { return }
        // The PDU's fields: opcode, then (mostly) an attribute handle, little-endian.
        let att = ByteCursor(pdu)
        if fromDevice, opcode == 0x1B || opcode == 0x1D, let handle = att.peek(UInt16.self, at: 1) {
            // The common case: a notification or indication (the connection's state does not change).
            events.append(
                .value(
                    peer: peer(on: link), handle: handle,
                    bytes: keepsValueBytes ? Array(pdu[3...]) : [],
                    kind: opcode == 0x1B ? .notification : .indication, time: time))
            return
        }
        var state = connection(link)
        defer { connections[link] = state }
        let peer = state.peer
        func malformed(_ what: String) {
            events.append(
                .loss(
                    peer: peer, time: time, count: 1,
                    reason: "malformed ATT \(what) (\(pdu.count) bytes)"))
        }
        if !fromDevice {
            // The host as client: remember the request its response answers.
            switch opcode {
            case 0x02:
                if let mtu = att.peek(UInt16.self, at: 1) { state.mtu = max(23, Int(mtu)) }
            case 0x04, 0x08, 0x10:
                let uuid = pdu.count >= 7 ? AdvertisingData.uuid(pdu[5...]) : nil
                finishLongRead(&state, unless: nil, into: &events)
                state.request = Request(opcode: opcode, handle: att.peek(UInt16.self, at: 1) ?? 0, uuid: uuid)
            case 0x0A, 0x0C:
                guard let handle = att.peek(UInt16.self, at: 1) else { return malformed("read request") }
                finishLongRead(&state, unless: opcode == 0x0C ? handle : nil, into: &events)
                state.request = Request(opcode: opcode, handle: handle, uuid: nil)
            case 0x12, 0x52, 0xD2:
                guard let handle = att.peek(UInt16.self, at: 1) else { return malformed("write") }
                let end = opcode == 0xD2 ? max(3, pdu.count - 12) : pdu.count
                events.append(.write(peer: peer, handle: handle, bytes: Array(pdu[3..<end]), time: time))
                if opcode == 0x12 { state.request = Request(opcode: opcode, handle: handle, uuid: nil) }
            default:
                break
            }
            return
        }
        switch opcode {
        case 0x1B, 0x1D:
            guard let handle = att.peek(UInt16.self, at: 1) else {
                return malformed(opcode == 0x1B ? "notification" : "indication")
            }
            events.append(
                .value(
                    peer: peer, handle: handle, bytes: Array(pdu[3...]),
                    kind: opcode == 0x1B ? .notification : .indication, time: time))
        case 0x23:
            var at = 1
            var values: [CaptureEvent] = []
            while at < pdu.count {
                guard let handle = att.peek(UInt16.self, at: at), let declared = att.peek(UInt16.self, at: at + 2)
                else { return malformed("multiple handle notification") }
                let length = Int(declared)
                guard at + 4 + length <= pdu.count else { return malformed("multiple handle notification") }
                values.append(
                    .value(
                        peer: peer, handle: handle, bytes: Array(pdu[(at + 4)..<(at + 4 + length)]),
                        kind: .multipleNotification, time: time))
                at += 4 + length
            }
            events.append(contentsOf: values)
        case 0x03:
            if let mtu = att.peek(UInt16.self, at: 1) { state.mtu = min(max(23, Int(mtu)), max(state.mtu, 23)) }
        case 0x01:
            state.request = nil
        case 0x05:
            // Find Information Response: format 1 (16-bit UUIDs) or 2 (128-bit).
            guard pdu.count >= 2 else { return malformed("find information response") }
            let size = pdu[1] == 1 ? 4 : pdu[1] == 2 ? 18 : 0
            guard size > 0 else { return malformed("find information response") }
            var at = 2
            while at + size <= pdu.count, let handle = att.peek(UInt16.self, at: at) {
                if let uuid = AdvertisingData.uuid(pdu[(at + 2)..<(at + size)]) {
                    events.append(.attribute(peer: peer, handle: handle, uuid: uuid))
                }
                at += size
            }
            state.request = nil
        case 0x09:
            // Read By Type Response: entry length, then entries.
            guard pdu.count >= 2, pdu[1] >= 2 else { return malformed("read by type response") }
            let size = Int(pdu[1])
            let requested = state.request?.opcode == 0x08 ? state.request?.uuid : nil
            var at = 2
            while at + size <= pdu.count, let handle = att.peek(UInt16.self, at: at) {
                if requested == CharacteristicUUID(short: 0x2803) {
                    // A characteristic declaration: properties, value handle, UUID.
                    if size >= 7, let valueHandle = att.peek(UInt16.self, at: at + 3),
                        let uuid = AdvertisingData.uuid(pdu[(at + 5)..<(at + size)])
                    {
                        events.append(.characteristic(peer: peer, handle: valueHandle, uuid: uuid))
                    }
                } else if let requested, requested != CharacteristicUUID(short: 0x2802) {
                    events.append(.characteristic(peer: peer, handle: handle, uuid: requested))
                    events.append(
                        .value(
                            peer: peer, handle: handle, bytes: Array(pdu[(at + 2)..<(at + size)]),
                            kind: .read, time: time))
                }
                at += size
            }
            state.request = nil
        case 0x11:
            // Read By Group Type Response: entry length, then (handle, end, UUID) entries.
            guard pdu.count >= 2, pdu[1] >= 6 else { return malformed("read by group type response") }
            let size = Int(pdu[1])
            var at = 2
            while at + size <= pdu.count {
                if let uuid = AdvertisingData.uuid(pdu[(at + 4)..<(at + size)]) {
                    events.append(.service(peer: peer, uuid: uuid))
                }
                at += size
            }
            state.request = nil
        case 0x0B:
            guard let request = state.request, request.opcode == 0x0A else { return }
            state.request = nil
            let value = Array(pdu[1...])
            if value.count >= state.mtu - 1 {
                state.longRead = LongRead(handle: request.handle, bytes: value, time: time)
            } else {
                events.append(.value(peer: peer, handle: request.handle, bytes: value, kind: .read, time: time))
            }
        case 0x0D:
            guard let request = state.request, request.opcode == 0x0C else { return }
            state.request = nil
            guard var long = state.longRead, long.handle == request.handle else { return }
            long.bytes.append(contentsOf: pdu[1...])
            if pdu.count - 1 >= state.mtu - 1 {
                state.longRead = long
            } else {
                state.longRead = nil
                events.append(.value(peer: peer, handle: long.handle, bytes: long.bytes, kind: .read, time: long.time))
            }
        case 0x13:
            state.request = nil
        default:
            break
        }
    }

    private func finishLongRead(_ state: inout Connection, unless handle: UInt16?, into events: inout [CaptureEvent]) {
        guard let long = state.longRead, long.handle != handle else { return }
        state.longRead = nil
        events.append(.value(peer: state.peer, handle: long.handle, bytes: long.bytes, kind: .read, time: long.time))
    }

    private mutating func flushLongRead(_ link: CaptureLink, into events: inout [CaptureEvent]) {
        guard var state = connections[link] else { return }
        finishLongRead(&state, unless: nil, into: &events)
        connections[link] = state
    }
}
