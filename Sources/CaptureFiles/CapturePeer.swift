/// The remote device of a connection in a capture: its Bluetooth address
/// and address type, or — when the capture starts after the connection was
/// made — only the controller and connection handle it was seen on.
public struct CapturePeer: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The address, `AA:BB:CC:DD:EE:FF`; `nil` when the capture never said.
    public let address: String?
    /// `public`, `random`, `public-identity`, `random-identity`, `bredr`; `nil` when unknown.
    public let addressType: String?
    /// For a peer of unknown address: the controller and connection handle it was seen on.
    public let link: CaptureLink?

    /// A peer by address.
    public init(address: String, addressType: String?) {
        self.address = address
        self.addressType = addressType
        link = nil
    }

    /// A peer known only by the connection it was seen on.
    public init(unknownOn link: CaptureLink) {
        address = nil
        addressType = nil
        self.link = link
    }

    /// The address from its 6 little-endian bytes, `AA:BB:CC:DD:EE:FF`.
    static func address(_ bytes: ArraySlice<UInt8>) -> String {
        bytes.reversed().map { hexByte($0).uppercased() }.joined(separator: ":")
    }

    /// The name of an LE address-type byte.
    static func addressType(_ type: UInt8) -> String {
        switch type {
        case 0: "public"
        case 1: "random"
        case 2: "public-identity"
        case 3: "random-identity"
        default: "type-\(type)"
        }
    }

    /// The identifier used in topics when the family gives none: the address's
    /// hex digits, upper case (`AABBCCDDEEFF`), or `HCI0_CONN0040` for an unknown address.
    public var identifier: String {
        if let address { return address.filter { $0 != ":" } }
        let link = link ?? CaptureLink(adapter: 0, handle: 0)
        return "HCI\(link.adapter)_CONN" + hexByte(UInt8(link.handle >> 8)).uppercased()
            + hexByte(UInt8(truncatingIfNeeded: link.handle)).uppercased()
    }

    public var description: String {
        if let address { return address + (addressType.map { " (\($0))" } ?? "") }
        return "unknown address on \(link.map(\.description) ?? "?")"
    }

    public static func < (lhs: CapturePeer, rhs: CapturePeer) -> Bool { lhs.identifier < rhs.identifier }

    /// Peers are the same device when their addresses are (whatever type
    /// each report gives: an advertisement may say `random` where the
    /// connection says `random-identity`), or, without address, their links.
    public static func == (lhs: CapturePeer, rhs: CapturePeer) -> Bool {
        lhs.address == rhs.address && (lhs.address != nil || lhs.link == rhs.link)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(address)
        if address == nil { hasher.combine(link) }
    }
}

/// A connection as a capture names it: the controller and the connection handle.
public struct CaptureLink: Sendable, Hashable, CustomStringConvertible {
    /// The controller's index (Linux monitor captures; 0 otherwise).
    public var adapter: UInt16
    /// The HCI connection handle.
    public var handle: UInt16

    /// Creates a link.
    public init(adapter: UInt16, handle: UInt16) {
        self.adapter = adapter
        self.handle = handle
    }

    public var description: String {
        "hci\(adapter) handle 0x" + hexByte(UInt8(handle >> 8)) + hexByte(UInt8(truncatingIfNeeded: handle))
    }
}
