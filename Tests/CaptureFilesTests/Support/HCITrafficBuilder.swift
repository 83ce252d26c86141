import Devices

/// Builds synthetic HCI traffic, packet by packet, as a host's capture
/// would show it: advertising reports, LE connections, ATT PDUs in L2CAP
/// frames cut into ACL fragments, disconnections. Times advance by a
/// microsecond step per packet (btsnoop's resolution), so every format
/// keeps them exactly.
struct HCITrafficBuilder {
    /// One HCI packet.
    struct Packet {
        /// The H4 type: 1 command, 2 ACL, 4 event.
        var type: UInt8
        /// Controller to host.
        var received: Bool
        /// Nanoseconds since the Unix epoch, whole microseconds.
        var time: UInt64
        var bytes: [UInt8]
        var adapter: UInt16 = 0
        /// Bytes the packet had before the capture cut it (nil: not cut).
        var originalLength: Int?
    }

    /// An ATT PDU to send on a connection.
    struct PDU {
        var handle: UInt16
        var received: Bool
        var bytes: [UInt8]
    }

    private(set) var packets: [Packet] = []
    /// The time of the next packet.
    var clock: UInt64
    /// ACL payload bytes per fragment (LE's default 27).
    var fragmentSize = 27
    var adapter: UInt16 = 0

    init(start: UInt64 = 1_700_000_000_000_000_000) {
        clock = start
    }

    /// Moves the clock to `time` (rounded down to a microsecond) if that is later.
    mutating func advance(to time: UInt64) {
        let rounded = time / 1000 * 1000
        if rounded > clock { clock = rounded }
    }

    private mutating func append(_ type: UInt8, received: Bool, _ bytes: [UInt8]) -> UInt64 {
        let time = clock
        packets.append(Packet(type: type, received: received, time: time, bytes: bytes, adapter: adapter))
        clock += 1000
        return time
    }

    /// An HCI event.
    mutating func event(_ code: UInt8, _ parameters: [UInt8]) {
        _ = append(4, received: true, [code, UInt8(parameters.count)] + parameters)
    }

    /// An HCI command.
    mutating func command(_ opcode: UInt16, _ parameters: [UInt8]) {
        _ = append(
            1, received: false, [UInt8(opcode & 0xFF), UInt8(opcode >> 8), UInt8(parameters.count)] + parameters)
    }

    /// An LE advertising report of `address` (6 bytes, most significant first) with AD structures `data`.
    mutating func advertise(_ address: [UInt8], random: Bool = false, data: [UInt8]) {
        event(0x3E, [0x02, 1, 0x00, random ? 1 : 0] + address.reversed() + [UInt8(data.count)] + data + [0xC4])
    }

    /// An LE Connection Complete on `handle` with `address`.
    mutating func connect(_ handle: UInt16, _ address: [UInt8], random: Bool = false) {
        command(0x200D, Array(repeating: 0, count: 25))
        event(
            0x3E,
            [0x01, 0x00, UInt8(handle & 0xFF), UInt8(handle >> 8), 0x00, random ? 1 : 0]
                + address.reversed() + [0x18, 0x00, 0x00, 0x00, 0xF4, 0x01, 0x00])
    }

    /// A Disconnection Complete of `handle`.
    mutating func disconnect(_ handle: UInt16, reason: UInt8 = 0x13) {
        event(0x05, [0x00, UInt8(handle & 0xFF), UInt8(handle >> 8), reason])
    }

    /// The ACL packets of an L2CAP frame on channel 4 carrying `pdu`.
    func fragments(_ pdu: PDU) -> [[UInt8]] {
        let frame = [UInt8(pdu.bytes.count & 0xFF), UInt8(pdu.bytes.count >> 8), 0x04, 0x00] + pdu.bytes
        var result: [[UInt8]] = []
        var at = 0
        while at < frame.count {
            let piece = Array(frame[at..<min(frame.count, at + fragmentSize)])
            let boundary: UInt16 = at == 0 ? (pdu.received ? 0x2000 : 0x0000) : 0x1000
            let field = pdu.handle | boundary
            result.append(
                [UInt8(field & 0xFF), UInt8(field >> 8), UInt8(piece.count & 0xFF), UInt8(piece.count >> 8)]
                    + piece)
            at += fragmentSize
        }
        return result
    }

    /// Sends `pdu` and returns the time of its last fragment (when it is complete).
    @discardableResult
    mutating func send(_ pdu: PDU) -> UInt64 {
        var time = clock
        for fragment in fragments(pdu) { time = append(2, received: pdu.received, fragment) }
        return time
    }

    /// Sends the PDUs with their fragments alternating (connections
    /// interleaved on the link), returning each one's completion time.
    mutating func interleave(_ pdus: [PDU]) -> [UInt64] {
        var pieces = pdus.map { fragments($0) }
        var times = Array(repeating: UInt64(0), count: pdus.count)
        var round = 0
        while pieces.contains(where: { round < $0.count }) {
            for index in pieces.indices where round < pieces[index].count {
                times[index] = append(2, received: pdus[index].received, pieces[index][round])
            }
            round += 1
        }
        pieces.removeAll()
        return times
    }

    /// Appends a raw ACL packet (tests of broken reassembly).
    mutating func rawACL(_ bytes: [UInt8], received: Bool = true, originalLength: Int? = nil) {
        let time = append(2, received: received, bytes)
        _ = time
        packets[packets.count - 1].originalLength = originalLength
    }
}

/// ATT PDUs.
enum ATT {
    static func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }

    /// A UUID's little-endian bytes: 2 for a Bluetooth base UUID, else 16.
    static func bytes(_ uuid: CharacteristicUUID) -> [UInt8] {
        if let short = uuid.shortValue { return le16(short) }
        var out: [UInt8] = []
        for shift in stride(from: 0, to: 64, by: 8) { out.append(UInt8(truncatingIfNeeded: uuid.low >> UInt64(shift))) }
        for shift in stride(from: 0, to: 64, by: 8) {
            out.append(UInt8(truncatingIfNeeded: uuid.high >> UInt64(shift)))
        }
        return out
    }

    static func notification(_ handle: UInt16, _ value: [UInt8]) -> [UInt8] { [0x1B] + le16(handle) + value }
    static func indication(_ handle: UInt16, _ value: [UInt8]) -> [UInt8] { [0x1D] + le16(handle) + value }
    static func multiple(_ values: [(UInt16, [UInt8])]) -> [UInt8] {
        [0x23] + values.flatMap { le16($0.0) + le16(UInt16($0.1.count)) + $0.1 }
    }
}
