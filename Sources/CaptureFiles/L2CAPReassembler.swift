import ByteCursor

/// Reassembles L2CAP frames from HCI ACL fragments, per connection and
/// direction, and says what could not be reassembled.
struct L2CAPReassembler {
    /// What one ACL packet completed or broke: a frame under way broken
    /// first (when `broken`), then a complete frame (when `frame`); neither
    /// when the packet only started or continued a frame.
    struct Step {
        /// The connection the packet belongs to.
        var link: CaptureLink
        /// Why a frame could not be completed, if one could not.
        var broken: String?
        /// A complete frame: its channel and payload.
        var frame: (channel: UInt16, payload: [UInt8])?
    }

    private struct Key: Hashable {
        var link: CaptureLink
        var received: Bool
    }

    private struct Partial {
        var expected: Int
        var bytes: [UInt8]
    }

    private var partials: [Key: Partial] = [:]

    /// The frames under way, for the end of a capture.
    var pendingLinks: [CaptureLink] { partials.keys.map(\.link) }

    /// No frame is under way on any link (a packet holding a whole frame then completes it alone).
    @inline(__always)
    var isIdle: Bool { partials.isEmpty }

    /// Adds the ACL packet `bytes` (handle, flags, length, data) of `adapter` going `direction`
    /// and returns what it completed or broke. `truncated` marks a packet the capture cut.
    mutating func add(_ bytes: [UInt8], adapter: UInt16, received: Bool, truncated: Bool) -> Step? {
        // The ACL header: handle and flags, data length; then the L2CAP header: length, channel.
        let acl = ByteCursor(bytes)
        guard let header = acl.peek(UInt16.self), let length = acl.peek(UInt16.self, at: 2) else { return nil }
        let link = CaptureLink(adapter: adapter, handle: header & 0x0FFF)
        let boundary = (header >> 12) & 3
        let declared = Int(length)
        if truncated || declared > bytes.count - 4 {
            let had = partials.isEmpty ? nil : partials.removeValue(forKey: Key(link: link, received: received))
            return Step(
                link: link,
                broken: "ACL packet cut by the capture (\(bytes.count - 4) of \(declared) bytes)"
                    + (had != nil ? "; its L2CAP frame is lost" : ""))
        }
        // The common case first: a complete frame in one packet, nothing under way.
        if boundary != 1, partials.isEmpty, declared >= 4, let length = acl.peek(UInt16.self, at: 4),
            let channel = acl.peek(UInt16.self, at: 6), declared == Int(length) + 4
        {
            return Step(link: link, frame: (channel, Array(bytes[8..<(4 + declared)])))
        }
        let key = Key(link: link, received: received)
        let data = bytes[4..<(4 + declared)]
        if boundary == 1 {
            guard var partial = partials.removeValue(forKey: key) else {
                return Step(link: link, broken: "ACL continuation fragment without a start (\(data.count) bytes)")
            }
            partial.bytes.append(contentsOf: data)
            if partial.bytes.count > partial.expected {
                return Step(
                    link: link,
                    broken: "L2CAP frame longer than its header says (\(partial.bytes.count) of "
                        + "\(partial.expected) bytes)")
            }
            if partial.bytes.count == partial.expected {
                return Step(link: link, frame: Self.frame(partial.bytes[...]))
            }
            partials[key] = partial
            return Step(link: link)
        }
        // A start (0b00, 0b10) or a complete frame (0b11).
        let previous = partials.isEmpty ? nil : partials.removeValue(forKey: key)
        guard data.count >= 4 else {
            return Step(link: link, broken: "L2CAP start fragment shorter than its header (\(data.count) bytes)")
        }
        let expected = Int(ByteCursor(data).peek(UInt16.self) ?? 0) + 4
        let brokenPrevious = previous.map { "L2CAP frame never completed (\($0.bytes.count) of \($0.expected) bytes)" }
        if data.count > expected {
            return Step(
                link: link, broken: "L2CAP frame longer than its header says (\(data.count) of \(expected) bytes)")
        }
        if data.count == expected {
            return Step(link: link, broken: brokenPrevious, frame: Self.frame(data))
        }
        partials[key] = Partial(expected: expected, bytes: Array(data))
        return Step(link: link, broken: brokenPrevious)
    }

    /// Forgets the frames under way on `link` (a disconnection); returns how many there were.
    mutating func drop(_ link: CaptureLink) -> Int {
        let keys = partials.keys.filter { $0.link == link }
        for key in keys { partials[key] = nil }
        return keys.count
    }

    /// A whole frame's channel and payload.
    private static func frame(_ bytes: ArraySlice<UInt8>) -> (channel: UInt16, payload: [UInt8]) {
        (ByteCursor(bytes).peek(UInt16.self, at: 2) ?? 0, Array(bytes.dropFirst(4)))
    }
}
