/// Reassembles L2CAP frames from HCI ACL fragments, per connection and
/// direction, and says what could not be reassembled.
struct L2CAPReassembler {
    /// What one ACL packet completed or broke.
    enum Outcome {
        /// A complete frame: its channel and payload.
        case frame(channel: UInt16, payload: [UInt8])
        /// Nothing yet (a start or continuation awaiting more).
        case pending
        /// A frame could not be completed; `reason` says why.
        case broken(String)
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

    /// Adds the ACL packet `bytes` (handle, flags, length, data) of `adapter` going `direction`
    /// and returns what it completed or broke, in order. `truncated` marks a packet the capture cut.
    mutating func add(
        _ bytes: [UInt8], adapter: UInt16, received: Bool, truncated: Bool
    )
        -> (link: CaptureLink, outcomes: [Outcome])?
    {
        guard bytes.count >= 4 else { return nil }
        let header = UInt16(bytes[0]) | UInt16(bytes[1]) << 8
        let link = CaptureLink(adapter: adapter, handle: header & 0x0FFF)
        let boundary = (header >> 12) & 3
        let declared = Int(UInt16(bytes[2]) | UInt16(bytes[3]) << 8)
        let key = Key(link: link, received: received)
        if truncated || declared > bytes.count - 4 {
            let had = partials.removeValue(forKey: key)
            return (
                link,
                [
                    .broken(
                        "ACL packet cut by the capture (\(bytes.count - 4) of \(declared) bytes)"
                            + (had != nil ? "; its L2CAP frame is lost" : ""))
                ]
            )
        }
        let data = bytes[4..<(4 + declared)]
        if boundary == 1 {
            guard var partial = partials[key] else {
                return (link, [.broken("ACL continuation fragment without a start (\(data.count) bytes)")])
            }
            partial.bytes.append(contentsOf: data)
            if partial.bytes.count > partial.expected {
                partials[key] = nil
                return (
                    link,
                    [
                        .broken(
                            "L2CAP frame longer than its header says (\(partial.bytes.count) of "
                                + "\(partial.expected) bytes)")
                    ]
                )
            }
            if partial.bytes.count == partial.expected {
                partials[key] = nil
                return (link, [Self.frame(partial.bytes)])
            }
            partials[key] = partial
            return (link, [.pending])
        }
        // A start (0b00, 0b10) or a complete frame (0b11).
        let previous = partials.removeValue(forKey: key)
        guard data.count >= 4 else {
            return (link, [.broken("L2CAP start fragment shorter than its header (\(data.count) bytes)")])
        }
        let length = Int(UInt16(data[data.startIndex]) | UInt16(data[data.startIndex + 1]) << 8)
        let expected = length + 4
        let brokenPrevious = previous.map { "L2CAP frame never completed (\($0.bytes.count) of \($0.expected) bytes)" }
        if data.count > expected {
            return (link, [.broken("L2CAP frame longer than its header says (\(data.count) of \(expected) bytes)")])
        }
        if data.count == expected {
            let frame = Self.frame(Array(data))
            if let brokenPrevious { return (link, [.broken(brokenPrevious), frame]) }
            return (link, [frame])
        }
        partials[key] = Partial(expected: expected, bytes: Array(data))
        if let brokenPrevious { return (link, [.broken(brokenPrevious)]) }
        return (link, [.pending])
    }

    /// Forgets the frames under way on `link` (a disconnection); returns how many there were.
    mutating func drop(_ link: CaptureLink) -> Int {
        let keys = partials.keys.filter { $0.link == link }
        for key in keys { partials[key] = nil }
        return keys.count
    }

    private static func frame(_ bytes: [UInt8]) -> Outcome {
        .frame(channel: UInt16(bytes[2]) | UInt16(bytes[3]) << 8, payload: Array(bytes[4...]))
    }
}
