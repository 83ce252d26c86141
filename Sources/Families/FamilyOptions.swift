/// Settings a family's decoder may take, by name, for example Comodule's
/// `property_table` (the path of a property table file). A family ignores
/// the settings it does not know.
///
/// ```swift
/// let options = FamilyOptions(["property_table": "scooter.json"])
/// var decoder = try FamilyRegistry.builtIn[.comodule]!.makeDecoder(options: options)
/// ```
public struct FamilyOptions: Sendable, Hashable {
    /// The settings by name.
    public var settings: [String: String]

    /// Creates options from settings by name.
    public init(_ settings: [String: String] = [:]) {
        self.settings = settings
    }

    /// The setting named `name`, if given.
    public subscript(name: String) -> String? { settings[name] }
}
