/// One MCAP Metadata record of a recording: `session` (name, source, host,
/// library, ...) or `device` (family, identifier, name, ...).
public struct ExportMetadata: Sendable, Hashable {
    /// The record's name.
    public var name: String
    /// Its key-value pairs.
    public var values: [String: String]

    /// Creates a record.
    public init(name: String, values: [String: String]) {
        self.name = name
        self.values = values
    }
}
