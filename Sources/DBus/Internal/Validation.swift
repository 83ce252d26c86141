import CDBus
import Glibc

/// Checks, before libdbus sees them, everything libdbus would abort the
/// process on (its argument checks are fatal by default).
enum Validation {
    /// Total container nesting libdbus accepts in a message, variants included
    /// (`DBUS_MAXIMUM_TYPE_RECURSION_DEPTH` × 2).
    static let maximumNesting = 64
    /// Longest signature a message may carry.
    static let maximumSignatureLength = 255
    /// Longest array, in bytes (`DBUS_MAXIMUM_ARRAY_LENGTH`, 64 MiB).
    static let maximumArrayLength = 1 << 26

    private static func noNUL(_ string: String, _ what: String) throws(DBusError) {
        if string.utf8.contains(0) {
            throw .invalidArgument("\(what) contains a NUL character: \(quoted(string))")
        }
    }

    static func quoted(_ string: String) -> String {
        let shown = string.count > 80 ? String(string.prefix(80)) + "…" : string
        return "\"" + shown.replacingNULs() + "\""
    }

    static func objectPath(_ path: String, _ what: String = "object path") throws(DBusError) {
        try noNUL(path, what)
        guard dbus_validate_path(path, nil) != 0 else {
            throw .invalidArgument(
                "\(what) \(quoted(path)) is not a valid object path (it must start with /, use only [A-Za-z0-9_] between single slashes, and not end with / unless it is /)"
            )
        }
    }

    static func interface(_ name: String, _ what: String = "interface") throws(DBusError) {
        try noNUL(name, what)
        guard dbus_validate_interface(name, nil) != 0 else {
            throw .invalidArgument(
                "\(what) \(quoted(name)) is not a valid interface name (two or more dot-separated elements of [A-Za-z0-9_], not starting with a digit, at most 255 characters)"
            )
        }
    }

    static func member(_ name: String, _ what: String = "member") throws(DBusError) {
        try noNUL(name, what)
        guard dbus_validate_member(name, nil) != 0 else {
            throw .invalidArgument(
                "\(what) \(quoted(name)) is not a valid member name ([A-Za-z0-9_], not starting with a digit, no dots, at most 255 characters)"
            )
        }
    }

    static func busName(_ name: String, _ what: String = "bus name") throws(DBusError) {
        try noNUL(name, what)
        guard dbus_validate_bus_name(name, nil) != 0 else {
            throw .invalidArgument(
                "\(what) \(quoted(name)) is not a valid bus name (a unique name like :1.42 or a well-known name like org.bluez)"
            )
        }
    }

    static func errorName(_ name: String, _ what: String = "error name") throws(DBusError) {
        try noNUL(name, what)
        guard dbus_validate_error_name(name, nil) != 0 else {
            throw .invalidArgument("\(what) \(quoted(name)) is not a valid error name (like org.example.Error.Failed)")
        }
    }

    static func string(_ string: String, _ what: String = "string") throws(DBusError) {
        try noNUL(string, what)
        guard dbus_validate_utf8(string, nil) != 0 else {
            throw .invalidArgument("\(what) \(quoted(string)) is not valid UTF-8 for D-Bus")
        }
    }

    /// Zero or more complete types.
    static func signature(_ signature: String, _ what: String = "signature") throws(DBusError) {
        try noNUL(signature, what)
        guard dbus_signature_validate(signature, nil) != 0 else {
            throw .invalidArgument("\(what) \(quoted(signature)) is not a valid D-Bus signature")
        }
    }

    /// Exactly one complete type.
    static func singleType(_ signature: String, _ what: String) throws(DBusError) {
        try noNUL(signature, what)
        guard dbus_signature_validate_single(signature, nil) != 0 else {
            throw .invalidArgument("\(what) \(quoted(signature)) is not a single complete D-Bus type")
        }
    }

    /// Checks one message argument: every string, path and signature, every
    /// element against its container's signature, and the nesting depth.
    static func argument(_ value: DBusValue, _ what: String) throws(DBusError) {
        try check(value, what, depth: 0)
        try singleType(value.signature, "\(what): signature")
    }

    private static func check(_ value: DBusValue, _ what: String, depth: Int) throws(DBusError) {
        switch value {
        case .byte, .boolean, .int16, .uint16, .int32, .uint32, .int64, .uint64, .double:
            return
        case .string(let string):
            try Validation.string(string, "\(what): string")
        case .objectPath(let path):
            try objectPath(path, "\(what): object path")
        case .signature(let text):
            try signature(text, "\(what): signature value")
            guard text.utf8.count <= maximumSignatureLength else {
                throw .invalidArgument("\(what): signature value is longer than \(maximumSignatureLength) characters")
            }
        case .unixFD(let handle):
            guard let fd = handle.fileDescriptor else {
                throw .invalidArgument("\(what): the unix fd was already taken or closed")
            }
            guard fcntl(fd, F_GETFD) >= 0 else {
                throw .invalidArgument("\(what): unix fd \(fd) is not an open file descriptor")
            }
        case .bytes(let bytes):
            try nesting(depth + 1, what)
            try arrayLength(bytes.count, what)
        case .array(let elementSignature, let elements):
            try nesting(depth + 1, what)
            try singleType(elementSignature, "\(what): array element signature")
            if elementSignature == "y" { try arrayLength(elements.count, what) }
            for (index, element) in elements.enumerated() {
                let elementWhat = "\(what)[\(index)]"
                let signature = element.signature
                guard signature == elementSignature else {
                    throw .invalidArgument(
                        "\(elementWhat) has signature \(quoted(signature)) but the array's elements are \(quoted(elementSignature))"
                    )
                }
                try check(element, elementWhat, depth: depth + 1)
            }
        case .dictionary(let keySignature, let valueSignature, let entries):
            try nesting(depth + 2, what)
            guard TypeCode.basicSignatures.contains(keySignature) else {
                throw .invalidArgument(
                    "\(what): dictionary key signature \(quoted(keySignature)) is not a basic type (one of ybnqiuxtdsogh)"
                )
            }
            try singleType(valueSignature, "\(what): dictionary value signature")
            for (index, entry) in entries.enumerated() {
                let keySig = entry.key.signature
                guard keySig == keySignature else {
                    throw .invalidArgument(
                        "\(what) entry \(index): key has signature \(quoted(keySig)) but the dictionary's keys are \(quoted(keySignature))"
                    )
                }
                let valueSig = entry.value.signature
                guard valueSig == valueSignature else {
                    throw .invalidArgument(
                        "\(what) entry \(index): value has signature \(quoted(valueSig)) but the dictionary's values are \(quoted(valueSignature))"
                    )
                }
                try check(entry.key, "\(what) entry \(index) key", depth: depth + 2)
                try check(entry.value, "\(what) entry \(index) value", depth: depth + 2)
            }
        case .structure(let fields):
            try nesting(depth + 1, what)
            guard !fields.isEmpty else {
                throw .invalidArgument("\(what): a structure needs at least one field")
            }
            for (index, field) in fields.enumerated() {
                try check(field, "\(what).\(index)", depth: depth + 1)
            }
        case .variant(let inner):
            try nesting(depth + 1, what)
            try check(inner, "\(what) (in variant)", depth: depth + 1)
        }
    }

    /// Checks a byte array against D-Bus's longest array (64 MiB), which
    /// libdbus would otherwise abort on.
    private static func arrayLength(_ count: Int, _ what: String) throws(DBusError) {
        guard count <= maximumArrayLength else {
            throw .invalidArgument(
                "\(what): a byte array of \(count) bytes is longer than D-Bus allows (\(maximumArrayLength) bytes)")
        }
    }

    private static func nesting(_ depth: Int, _ what: String) throws(DBusError) {
        guard depth <= maximumNesting else {
            throw .invalidArgument("\(what): containers are nested more than \(maximumNesting) deep")
        }
    }
}

extension String {
    fileprivate func replacingNULs() -> String {
        String(String.UnicodeScalarView(unicodeScalars.map { $0 == "\u{0}" ? "␀" : $0 }))
    }
}
