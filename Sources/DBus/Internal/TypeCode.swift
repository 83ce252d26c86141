import CDBus

/// The `DBUS_TYPE_*` codes, which Swift cannot import as macros. Computed
/// from the shim's inline functions, so each use folds to a constant (a
/// `static let` would cost a once-check on every read of every value).
enum TypeCode {
    static var invalid: Int32 { cdbus_type_invalid() }
    static var byte: Int32 { cdbus_type_byte() }
    static var boolean: Int32 { cdbus_type_boolean() }
    static var int16: Int32 { cdbus_type_int16() }
    static var uint16: Int32 { cdbus_type_uint16() }
    static var int32: Int32 { cdbus_type_int32() }
    static var uint32: Int32 { cdbus_type_uint32() }
    static var int64: Int32 { cdbus_type_int64() }
    static var uint64: Int32 { cdbus_type_uint64() }
    static var double: Int32 { cdbus_type_double() }
    static var string: Int32 { cdbus_type_string() }
    static var objectPath: Int32 { cdbus_type_object_path() }
    static var signature: Int32 { cdbus_type_signature() }
    static var unixFD: Int32 { cdbus_type_unix_fd() }
    static var array: Int32 { cdbus_type_array() }
    static var variant: Int32 { cdbus_type_variant() }
    static var structure: Int32 { cdbus_type_struct() }
    static var dictEntry: Int32 { cdbus_type_dict_entry() }

    /// Signature characters of the basic types, the only ones allowed as dictionary keys.
    static let basicSignatures: Set<String> = ["y", "b", "n", "q", "i", "u", "x", "t", "d", "s", "o", "g", "h"]
}
