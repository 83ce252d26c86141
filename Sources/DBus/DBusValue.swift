/// A D-Bus value of any type, as it travels in a message.
///
/// Containers carry the signatures of their elements, so an empty array or
/// dictionary still has a complete type:
///
/// ```swift
/// let filter: DBusValue = .vardict([
///     "Transport": .string("le"),
///     "DuplicateData": .boolean(false),
///     "UUIDs": .array(elementSignature: "s", []),
/// ])
/// print(filter.signature)   // a{sv}
/// ```
///
/// Values are checked before they are sent (object paths, strings, element
/// signatures…); a bad value makes the call throw
/// ``DBusError/Code/invalidArgument`` and nothing reaches libdbus.
public enum DBusValue: Sendable, Hashable {
    /// `y`: an unsigned 8-bit integer.
    case byte(UInt8)
    /// `b`: a boolean.
    case boolean(Bool)
    /// `n`: a signed 16-bit integer.
    case int16(Int16)
    /// `q`: an unsigned 16-bit integer.
    case uint16(UInt16)
    /// `i`: a signed 32-bit integer.
    case int32(Int32)
    /// `u`: an unsigned 32-bit integer.
    case uint32(UInt32)
    /// `x`: a signed 64-bit integer.
    case int64(Int64)
    /// `t`: an unsigned 64-bit integer.
    case uint64(UInt64)
    /// `d`: an IEEE 754 double.
    case double(Double)
    /// `s`: a UTF-8 string without NUL characters.
    case string(String)
    /// `o`: an object path such as `/org/bluez/hci0`.
    case objectPath(String)
    /// `g`: a type signature such as `a{sv}`.
    case signature(String)
    /// `h`: a unix file descriptor.
    case unixFD(DBusUnixFD)
    /// `ay`: a byte array, such as a characteristic's `Value`, held as
    /// bytes rather than one ``byte(_:)`` value per element. Received byte
    /// arrays always come as this case.
    ///
    /// An ``array(elementSignature:_:)`` of ``byte(_:)`` values with element
    /// signature `y` is the same D-Bus value: the two compare equal, hash
    /// alike and are sent alike.
    ///
    /// ```swift
    /// try await bus.call(destination: "org.bluez", path: characteristic,
    ///                    interface: "org.bluez.GattCharacteristic1", member: "WriteValue",
    ///                    arguments: [.bytes([0x01, 0x00]), .vardict([:])])
    /// ```
    case bytes([UInt8])
    /// `a…`: an array whose elements all have `elementSignature`
    /// (a single complete type such as `y`, `s` or `a{sv}`).
    case array(elementSignature: String, [DBusValue])
    /// `a{kv}`: a dictionary; keys have the basic type `keySignature`, values
    /// the single complete type `valueSignature`. Entries keep their order.
    case dictionary(keySignature: String, valueSignature: String, [DBusDictionaryEntry])
    /// `(…)`: a structure of one or more fields.
    case structure([DBusValue])
    // The one recursive case is the one boxed: the others hold their
    // payload inline, so reading a signal's values allocates only for
    // strings and arrays, not once per value.
    /// `v`: a value of any type, with its type carried alongside.
    indirect case variant(DBusValue)

    /// The value's D-Bus type signature.
    ///
    /// ```swift
    /// DBusValue.structure([.string("a"), .variant(.int32(1))]).signature   // (sv)
    /// DBusValue.array(elementSignature: "ay", []).signature               // aay
    /// ```
    public var signature: String {
        switch self {
        case .byte: "y"
        case .boolean: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .unixFD: "h"
        case .bytes: "ay"
        case .array(let element, _): "a" + element
        case .dictionary(let key, let value, _): "a{" + key + value + "}"
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        case .variant: "v"
        }
    }
}
