/// The shared `Codable` form of Jacquard's protobuf enums: a known value is
/// its lower-camel-case name (`"doubleTap"`), any other value its integer id
/// (`42`), so JSON stays readable and nothing is lost.
enum JacquardEnumCoding {
    /// Encodes `name` when there is one, otherwise `id`.
    static func encode(name: String?, id: Int32, to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let name {
            try container.encode(name)
        } else {
            try container.encode(id)
        }
    }

    /// Decodes an integer id, or a name looked up in `names`.
    static func decodeID(from decoder: any Decoder, names: [(name: String, id: Int32)]) throws -> Int32 {
        let container = try decoder.singleValueContainer()
        if let id = try? container.decode(Int32.self) { return id }
        let name = try container.decode(String.self)
        guard let match = names.first(where: { $0.name == name }) else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription:
                    "\"\(name)\" is not a known name; expected one of \(names.map(\.name)) or an integer id"
            )
        }
        return match.id
    }
}
