/// A Comodule module's property table: how each property index decodes.
///
/// The table is configuration: ``default`` is the profile-v1 table from the
/// spec, and a device's own table can be loaded from a JSON file with
/// ``load(contentsOfFile:)`` (format in ``init(json:)``). Every table is
/// validated when created: unique indices and identifiers, a raw width of
/// 1…8 bytes, a positive finite step and ordered finite bounds for ranges,
/// a non-empty list of distinct, non-empty states.
///
/// ```swift
/// let table = ComodulePropertyTable.default
/// print(table[1]?.identifier ?? "none")             // speed
/// print(table.property(identifier: "lights")?.index) // Optional(4)
/// ```
public struct ComodulePropertyTable: Sendable, Hashable {
    /// The properties in table order.
    public let properties: [ComoduleProperty]
    private let positions: [UInt16: Int]

    /// Creates a validated table.
    ///
    /// - Parameter properties: The properties, in the order to list them.
    /// - Throws: ``ComodulePropertyTableError`` naming the first property and
    ///   field that breaks a rule (`field` is `properties[i].<name>`).
    public init(properties: [ComoduleProperty]) throws(ComodulePropertyTableError) {
        try self.init(properties: properties, lines: nil)
    }

    /// Creates a validated table, with each property's line in its source
    /// file (for error messages).
    init(properties: [ComoduleProperty], lines: [Int?]?) throws(ComodulePropertyTableError) {
        var positions: [UInt16: Int] = [:]
        var identifiers: Set<String> = []
        for (position, property) in properties.enumerated() {
            let line = lines.flatMap { position < $0.count ? $0[position] : nil }
            func failure(
                _ code: ComodulePropertyTableError.Code, _ field: String, _ message: String
            )
                -> ComodulePropertyTableError
            {
                ComodulePropertyTableError(
                    code: code,
                    field: "properties[\(position)].\(field)",
                    line: line,
                    message: message
                )
            }
            if let problem = property.problem() {
                throw failure(.invalidValue, problem.field, problem.message)
            }
            if let earlier = positions[property.index] {
                throw failure(
                    .duplicateIndex,
                    "index",
                    "index \(property.index) is already used by properties[\(earlier)]"
                )
            }
            if !identifiers.insert(property.identifier).inserted {
                throw failure(.duplicateIdentifier, "identifier", "identifier \"\(property.identifier)\" is used twice")
            }
            positions[property.index] = position
        }
        self.properties = properties
        self.positions = positions
    }

    /// The property with a wire index, or `nil` when the table has none.
    ///
    /// - Parameter index: The property index from a frame.
    public subscript(index: UInt16) -> ComoduleProperty? {
        positions[index].map { properties[$0] }
    }

    /// The property with an SDK identifier, or `nil`.
    ///
    /// - Parameter identifier: For example `"state_of_charge"`.
    /// - Returns: The property.
    public func property(identifier: String) -> ComoduleProperty? {
        properties.first { $0.identifier == identifier }
    }

    /// The profile-v1 default table from the spec.
    ///
    /// | Index | identifier | type | unit | raw | step | range / states | writable |
    /// |---|---|---|---|---|---|---|---|
    /// | 1 | speed | range | kilometer_per_hour | u16 | 0.1 | 0…100 | no |
    /// | 2 | state_of_charge | range | percent | u8 | 1 | 0…100 | no |
    /// | 3 | odometer | range | kilometer | u32 | 0.1 | 0…429496729.5 | no |
    /// | 4 | lights | states | | u8 | | disabled, blinking, enabled | yes |
    /// | 5 | assist_level | range | | u8 | 1 | 0…5 | yes |
    /// | 6 | locked | states | | u8 | | unlocked, locked | yes |
    /// | 7 | battery_temperature | range | celsius | i16 | 0.1 | −40…100 | no |
    /// | 16 | motor_serial | raw | | 8 bytes | | | no |
    ///
    /// The spec does not say which properties are writable; this table marks
    /// the ones an app sets (lights, assist level, lock).
    public static let `default`: ComodulePropertyTable = {
        let properties = [
            ComoduleProperty(
                index: 1,
                identifier: "speed",
                type: .range(step: 0.1, lowerBound: 0, upperBound: 100),
                unit: "kilometer_per_hour",
                rawWidth: 2
            ),
            ComoduleProperty(
                index: 2,
                identifier: "state_of_charge",
                type: .range(step: 1, lowerBound: 0, upperBound: 100),
                unit: "percent",
                rawWidth: 1
            ),
            ComoduleProperty(
                index: 3,
                identifier: "odometer",
                type: .range(step: 0.1, lowerBound: 0, upperBound: 429_496_729.5),
                unit: "kilometer",
                rawWidth: 4
            ),
            ComoduleProperty(
                index: 4,
                identifier: "lights",
                type: .states(["disabled", "blinking", "enabled"]),
                rawWidth: 1,
                writable: true
            ),
            ComoduleProperty(
                index: 5,
                identifier: "assist_level",
                type: .range(step: 1, lowerBound: 0, upperBound: 5),
                rawWidth: 1,
                writable: true
            ),
            ComoduleProperty(
                index: 6,
                identifier: "locked",
                type: .states(["unlocked", "locked"]),
                rawWidth: 1,
                writable: true
            ),
            ComoduleProperty(
                index: 7,
                identifier: "battery_temperature",
                type: .range(step: 0.1, lowerBound: -40, upperBound: 100),
                unit: "celsius",
                rawWidth: 2,
                isSigned: true
            ),
            ComoduleProperty(index: 16, identifier: "motor_serial", type: .raw, rawWidth: 8),
        ]
        // The literal above satisfies every rule; a failure here is a bug in it.
        do {
            return try ComodulePropertyTable(properties: properties)
        } catch {
            preconditionFailure("invalid default Comodule table: \(error)")
        }
    }()
}
