import CDBus

/// The `DBUS_TYPE_*` codes, which Swift cannot import as macros.
enum TypeCode {
    static let invalid = cdbus_type_invalid()
    static let byte = cdbus_type_byte()
    static let boolean = cdbus_type_boolean()
    static let int16 = cdbus_type_int16()
    static let uint16 = cdbus_type_uint16()
    static let int32 = cdbus_type_int32()
    static let uint32 = cdbus_type_uint32()
    static let int64 = cdbus_type_int64()
    static let uint64 = cdbus_type_uint64()
    static let double = cdbus_type_double()
    static let string = cdbus_type_string()
    static let objectPath = cdbus_type_object_path()
    static let signature = cdbus_type_signature()
    static let unixFD = cdbus_type_unix_fd()
    static let array = cdbus_type_array()
    static let variant = cdbus_type_variant()
    static let structure = cdbus_type_struct()
    static let dictEntry = cdbus_type_dict_entry()

    /// Signature characters of the basic types, the only ones allowed as dictionary keys.
    static let basicSignatures: Set<String> = ["y", "b", "n", "q", "i", "u", "x", "t", "d", "s", "o", "g", "h"]
}
