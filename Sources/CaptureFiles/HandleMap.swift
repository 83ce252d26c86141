public import Devices
import Foundation

/// Handle → characteristic assignments from a file, for captures that hold
/// no GATT discovery (`tlm import --handle-map FILE`).
///
/// One assignment a line: an optional device address, the ATT handle
/// (`0x002a` or decimal) and the UUID (`2a19` or the 128-bit form);
/// `#` starts a comment. A line without an address applies to every device.
///
/// ```text
/// # handle  characteristic
/// 0x0010    0000d001-0000-1000-8000-00805f9b34fb
/// C4:7C:8D:6A:12:34  0x0023  2a19
/// ```
public struct HandleMap: Sendable, Hashable {
    /// Assignments for every device.
    public var shared: [UInt16: CharacteristicUUID] = [:]
    /// Assignments by device address (upper case, with colons).
    public var byAddress: [String: [UInt16: CharacteristicUUID]] = [:]

    /// An empty map.
    public init() {}

    /// Parses a map's text; `name` is used in errors.
    ///
    /// - Throws: ``CaptureFileError`` (`.handleMap`) naming the line.
    public init(text: String, name: String = "<handle map>") throws(CaptureFileError) {
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let content = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let words = content.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," || $0 == "\r" })
                .map(String.init)
            if words.isEmpty { continue }
            guard words.count == 2 || words.count == 3 else {
                throw CaptureFileError(
                    .handleMap,
                    "\(name):\(number + 1): expected [address] handle uuid, "
                        + "found '\(content.trimmingCharacters(in: .whitespaces))'")
            }
            let handleText = words[words.count - 2]
            let handle =
                handleText.lowercased().hasPrefix("0x")
                ? UInt16(handleText.dropFirst(2), radix: 16)
                : UInt16(handleText)
            guard let handle, handle > 0 else {
                throw CaptureFileError(
                    .handleMap,
                    "\(name):\(number + 1): '\(handleText)' is not an ATT handle "
                        + "(0x0001 to 0xffff)")
            }
            guard let uuid = CharacteristicUUID(words[words.count - 1]) else {
                throw CaptureFileError(.handleMap, "\(name):\(number + 1): '\(words[words.count - 1])' is not a UUID")
            }
            if words.count == 3 {
                let address = words[0].uppercased()
                let parts = address.split(separator: ":")
                guard parts.count == 6, parts.allSatisfy({ $0.count == 2 && UInt8($0, radix: 16) != nil }) else {
                    throw CaptureFileError(
                        .handleMap,
                        "\(name):\(number + 1): '\(words[0])' is not a Bluetooth "
                            + "address (AA:BB:CC:DD:EE:FF)")
                }
                byAddress[address, default: [:]][handle] = uuid
            } else {
                shared[handle] = uuid
            }
        }
    }

    /// Reads a map file.
    ///
    /// - Throws: ``CaptureFileError`` when it cannot be read or parsed.
    public init(contentsOfFile path: String) throws(CaptureFileError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CaptureFileError(.io, "\(path): cannot read the handle map")
        }
        try self.init(text: String(decoding: data, as: UTF8.self), name: path)
    }

    /// The characteristic of `handle` on `peer`, if the map says.
    public func characteristic(of handle: UInt16, on peer: CapturePeer) -> CharacteristicUUID? {
        if let address = peer.address, let own = byAddress[address]?[handle] { return own }
        return shared[handle]
    }

    /// Whether the map assigns nothing.
    public var isEmpty: Bool { shared.isEmpty && byAddress.isEmpty }
}
