/// A device family's name: the first level of its topics
/// (`/<family>/<device>/<stream>`) and the word used for it on the command
/// line and in pipeline files.
///
/// A family is open-ended: each one declares its name next to its wire
/// format (for example ``diot`` in `Diot/`), and the `Families` target lists
/// the families a build knows, with everything else about them (decoder,
/// simulator, capture profile, recorded streams). A name is lowercase ASCII
/// letters, digits and `_`, starting with a letter, so that it is a valid
/// topic level for ROS 2 tools too.
///
/// ```swift
/// let family = DeviceFamily(rawValue: "diot")
/// print(family == .diot)                          // true
/// print(DeviceFamily(rawValue: "Not a name"))      // nil
/// ```
public struct DeviceFamily: RawRepresentable, Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The family's name.
    public let rawValue: String

    /// A family by name; `nil` when `rawValue` is not a valid family name
    /// (empty, longer than 32 characters, or not lowercase letters, digits
    /// and `_` starting with a letter).
    public init?(rawValue: String) {
        let bytes = Array(rawValue.utf8)
        guard let first = bytes.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first), bytes.count <= 32,
            bytes.allSatisfy({
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "_")
            })
        else { return nil }
        self.rawValue = rawValue
    }

    /// A family whose name is known to be valid (the families' own constants).
    package init(known name: StaticString) {
        guard let family = DeviceFamily(rawValue: name.description) else {
            preconditionFailure("\(name) is not a valid family name")
        }
        self = family
    }

    public var description: String { rawValue }

    public static func < (lhs: DeviceFamily, rhs: DeviceFamily) -> Bool { lhs.rawValue < rhs.rawValue }

    public init(from decoder: any Decoder) throws {
        let name = try decoder.singleValueContainer().decode(String.self)
        guard let family = DeviceFamily(rawValue: name) else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription: "'\(name)' is not a family name"))
        }
        self = family
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
