/// One key–value pair of a D-Bus dictionary (`a{kv}`), kept in message order.
///
/// ```swift
/// let entry = DBusDictionaryEntry(key: .string("Powered"), value: .variant(.boolean(true)))
/// let dict = DBusValue.dictionary(keySignature: "s", valueSignature: "v", [entry])
/// ```
public struct DBusDictionaryEntry: Sendable, Hashable {
    /// The key: a basic value (not a container or variant).
    public var key: DBusValue
    /// The value.
    public var value: DBusValue

    /// Creates an entry.
    ///
    /// - Parameters:
    ///   - key: The key; its signature must be the dictionary's key signature.
    ///   - value: The value; its signature must be the dictionary's value signature.
    ///
    /// ```swift
    /// DBusDictionaryEntry(key: .uint16(0x004C), value: .variant(.bytes([0x02, 0x15])))
    /// ```
    public init(key: DBusValue, value: DBusValue) {
        self.key = key
        self.value = value
    }
}
