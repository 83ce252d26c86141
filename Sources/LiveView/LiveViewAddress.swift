/// Where a live view listens: `[HOST:]PORT`, the host `127.0.0.1` when only
/// a port is given (a live view is local unless asked otherwise).
///
/// ```swift
/// try LiveViewAddress(parsing: "8765")          // 127.0.0.1:8765
/// try LiveViewAddress(parsing: "0.0.0.0:8765")  // every interface
/// try LiveViewAddress(parsing: "[::1]:0")       // IPv6 loopback, a free port
/// ```
public struct LiveViewAddress: Sendable, Hashable, CustomStringConvertible {
    /// The host the server binds, a name or an IPv4 or IPv6 address (without brackets).
    public var host: String
    /// The TCP port; 0 binds a free port (the server reports which).
    public var port: Int

    /// The host used when only a port is given.
    public static let defaultHost = "127.0.0.1"

    /// An address of `host` and `port`.
    public init(host: String = LiveViewAddress.defaultHost, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `[HOST:]PORT`; an IPv6 host is written in brackets, `[::1]:8765`.
    ///
    /// - Throws: ``LiveViewError`` (`.invalidAddress`) when the host is empty
    ///   or the port is not a number in 0...65535.
    public init(parsing text: String) throws(LiveViewError) {
        let hostPart: Substring?
        let portPart: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else {
                throw LiveViewError(.invalidAddress, "\(String(reflecting: text)): an IPv6 host needs its closing ]")
            }
            hostPart = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else {
                throw LiveViewError(.invalidAddress, "\(String(reflecting: text)): expected :PORT after the IPv6 host")
            }
            portPart = rest.dropFirst()
        } else if let colon = text.lastIndex(of: ":") {
            hostPart = text[..<colon]
            portPart = text[text.index(after: colon)...]
            if hostPart?.contains(":") == true {
                throw LiveViewError(
                    .invalidAddress, "\(String(reflecting: text)): write an IPv6 host in brackets, [::1]:8765")
            }
        } else {
            hostPart = nil
            portPart = text[...]
        }
        if let hostPart, hostPart.isEmpty || hostPart.contains(where: \.isWhitespace) {
            throw LiveViewError(.invalidAddress, "\(String(reflecting: text)): the host is empty or has spaces")
        }
        guard !portPart.isEmpty, portPart.allSatisfy(\.isASCII), let port = Int(portPart), (0...65_535).contains(port)
        else {
            throw LiveViewError(
                .invalidAddress,
                "\(String(reflecting: text)): the port must be a number in 0...65535 (0 for a free one); "
                    + "expected [HOST:]PORT")
        }
        self.host = hostPart.map(String.init) ?? Self.defaultHost
        self.port = port
    }

    /// `host:port`, the host in brackets when it is an IPv6 address.
    public var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
