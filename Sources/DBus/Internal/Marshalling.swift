import CDBus

/// Writes ``DBusValue``s into and reads them out of libdbus messages, through
/// a `DBusMessageIter` that only ever lives on the stack.
///
/// D-Bus does not use the package's `ByteCursor`: libdbus parses the wire
/// format (alignment, endianness, signatures) and validates it before a
/// message reaches us, and hands values out one typed field at a time, so
/// there are no raw bytes to walk here. A native D-Bus parser would read
/// through `ByteCursor` (its `align(to:)` is there for D-Bus's padding).
enum Marshalling {
    /// Appends a value already checked by ``Validation/argument(_:_:)``, so
    /// the only failure left is running out of memory.
    static func append(_ value: DBusValue, to iter: inout DBusMessageIter) throws(DBusError) {
        switch value {
        case .byte(var byte):
            try basic(&iter, TypeCode.byte, &byte)
        case .boolean(let flag):
            var bool: dbus_bool_t = flag ? 1 : 0
            try basic(&iter, TypeCode.boolean, &bool)
        case .int16(var number):
            try basic(&iter, TypeCode.int16, &number)
        case .uint16(var number):
            try basic(&iter, TypeCode.uint16, &number)
        case .int32(var number):
            try basic(&iter, TypeCode.int32, &number)
        case .uint32(var number):
            try basic(&iter, TypeCode.uint32, &number)
        case .int64(var number):
            try basic(&iter, TypeCode.int64, &number)
        case .uint64(var number):
            try basic(&iter, TypeCode.uint64, &number)
        case .double(var number):
            try basic(&iter, TypeCode.double, &number)
        case .string(let text):
            try appendString(&iter, TypeCode.string, text)
        case .objectPath(let text):
            try appendString(&iter, TypeCode.objectPath, text)
        case .signature(let text):
            try appendString(&iter, TypeCode.signature, text)
        case .unixFD(let handle):
            // libdbus dups the descriptor into the message; ours stays open.
            guard var fd = handle.fileDescriptor else {
                throw .invalidArgument("the unix fd was taken or closed while the message was built")
            }
            try basic(&iter, TypeCode.unixFD, &fd)
        case .bytes(let bytes):
            try appendBytes(&iter, bytes)
        case .array("y", let elements):
            var bytes = [UInt8]()
            bytes.reserveCapacity(elements.count)
            for element in elements {
                guard case .byte(let byte) = element else {
                    throw .invalidArgument("byte array holds a \(element.signature)")
                }
                bytes.append(byte)
            }
            try appendBytes(&iter, bytes)
        case .array(let elementSignature, let elements):
            try container(&iter, TypeCode.array, elementSignature) { (sub) throws(DBusError) in
                for element in elements {
                    try append(element, to: &sub)
                }
            }
        case .dictionary(let keySignature, let valueSignature, let entries):
            try container(&iter, TypeCode.array, "{" + keySignature + valueSignature + "}") { (sub) throws(DBusError) in
                for entry in entries {
                    try container(&sub, TypeCode.dictEntry, nil) { (pair) throws(DBusError) in
                        try append(entry.key, to: &pair)
                        try append(entry.value, to: &pair)
                    }
                }
            }
        case .structure(let fields):
            try container(&iter, TypeCode.structure, nil) { (sub) throws(DBusError) in
                for field in fields {
                    try append(field, to: &sub)
                }
            }
        case .variant(let inner):
            try container(&iter, TypeCode.variant, inner.signature) { (sub) throws(DBusError) in
                try append(inner, to: &sub)
            }
        }
    }

    /// Appends an `ay` in one piece.
    private static func appendBytes(_ iter: inout DBusMessageIter, _ bytes: [UInt8]) throws(DBusError) {
        try container(&iter, TypeCode.array, "y") { (sub) throws(DBusError) in
            guard !bytes.isEmpty else { return }
            let ok = bytes.withUnsafeBufferPointer { buffer in
                var base = buffer.baseAddress
                return dbus_message_iter_append_fixed_array(&sub, TypeCode.byte, &base, Int32(buffer.count))
            }
            guard ok != 0 else { throw .outOfMemory("byte array") }
        }
    }

    private static func basic<T>(_ iter: inout DBusMessageIter, _ type: Int32, _ value: inout T) throws(DBusError) {
        let ok = withUnsafeMutablePointer(to: &value) { dbus_message_iter_append_basic(&iter, type, $0) }
        guard ok != 0 else { throw .outOfMemory("appending a value") }
    }

    private static func appendString(_ iter: inout DBusMessageIter, _ type: Int32, _ text: String) throws(DBusError) {
        let ok = text.withCString { cString in
            var pointer: UnsafePointer<CChar>? = cString
            return dbus_message_iter_append_basic(&iter, type, &pointer)
        }
        guard ok != 0 else { throw .outOfMemory("appending a string") }
    }

    /// Opens a container, fills it, and closes it, or abandons it if filling fails.
    private static func container(
        _ iter: inout DBusMessageIter, _ type: Int32, _ signature: String?,
        _ fill: (inout DBusMessageIter) throws(DBusError) -> Void
    ) throws(DBusError) {
        var sub = DBusMessageIter()
        let opened: dbus_bool_t
        if let signature {
            opened = signature.withCString { dbus_message_iter_open_container(&iter, type, $0, &sub) }
        } else {
            opened = dbus_message_iter_open_container(&iter, type, nil, &sub)
        }
        guard opened != 0 else { throw .outOfMemory("opening a container") }
        do {
            try fill(&sub)
        } catch {
            dbus_message_iter_abandon_container(&iter, &sub)
            throw error
        }
        guard dbus_message_iter_close_container(&iter, &sub) != 0 else {
            throw .outOfMemory("closing a container")
        }
    }

    /// Reads the value at the iterator (which the caller then advances).
    static func read(_ iter: inout DBusMessageIter) throws(DBusError) -> DBusValue {
        let type = dbus_message_iter_get_arg_type(&iter)
        switch type {
        case TypeCode.byte:
            return .byte(basic(&iter, UInt8(0)))
        case TypeCode.boolean:
            return .boolean(basic(&iter, dbus_bool_t(0)) != 0)
        case TypeCode.int16:
            return .int16(basic(&iter, Int16(0)))
        case TypeCode.uint16:
            return .uint16(basic(&iter, UInt16(0)))
        case TypeCode.int32:
            return .int32(basic(&iter, Int32(0)))
        case TypeCode.uint32:
            return .uint32(basic(&iter, UInt32(0)))
        case TypeCode.int64:
            return .int64(basic(&iter, Int64(0)))
        case TypeCode.uint64:
            return .uint64(basic(&iter, UInt64(0)))
        case TypeCode.double:
            return .double(basic(&iter, Double(0)))
        case TypeCode.string:
            return .string(readString(&iter))
        case TypeCode.objectPath:
            return .objectPath(readString(&iter))
        case TypeCode.signature:
            return .signature(readString(&iter))
        case TypeCode.unixFD:
            // get_basic dup()s the descriptor; the DBusUnixFD owns the copy.
            let fd = basic(&iter, Int32(-1))
            guard fd >= 0 else {
                throw .unexpectedReply("a unix fd in the message could not be duplicated")
            }
            return .unixFD(DBusUnixFD(taking: fd))
        case TypeCode.array:
            return try readArray(&iter)
        case TypeCode.structure:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            var fields: [DBusValue] = []
            while dbus_message_iter_get_arg_type(&sub) != TypeCode.invalid {
                fields.append(try read(&sub))
                dbus_message_iter_next(&sub)
            }
            return .structure(fields)
        case TypeCode.variant:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            return .variant(try read(&sub))
        default:
            throw .unexpectedReply("unsupported D-Bus type code \(type) in a message")
        }
    }

    private static func basic<T>(_ iter: inout DBusMessageIter, _ initial: T) -> T {
        var value = initial
        withUnsafeMutablePointer(to: &value) { dbus_message_iter_get_basic(&iter, $0) }
        return value
    }

    private static func readString(_ iter: inout DBusMessageIter) -> String {
        var pointer: UnsafePointer<CChar>?
        dbus_message_iter_get_basic(&iter, &pointer)
        return pointer.map { String(cString: $0) } ?? ""
    }

    private static func readArray(_ iter: inout DBusMessageIter) throws(DBusError) -> DBusValue {
        let elementType = dbus_message_iter_get_element_type(&iter)
        var sub = DBusMessageIter()
        dbus_message_iter_recurse(&iter, &sub)

        if elementType == TypeCode.byte {
            var base: UnsafeMutableRawPointer?
            var count: Int32 = 0
            withUnsafeMutablePointer(to: &base) { dbus_message_iter_get_fixed_array(&sub, $0, &count) }
            // One copy of the bytes, no value per byte.
            guard let base, count > 0 else { return .bytes([]) }
            return .bytes(Array(UnsafeRawBufferPointer(start: base, count: Int(count))))
        }

        if elementType == TypeCode.dictEntry {
            let (keySignature, valueSignature) = try entrySignatures(&iter, first: sub)
            var entries: [DBusDictionaryEntry] = []
            while dbus_message_iter_get_arg_type(&sub) == TypeCode.dictEntry {
                var pair = DBusMessageIter()
                dbus_message_iter_recurse(&sub, &pair)
                let key = try read(&pair)
                dbus_message_iter_next(&pair)
                let value = try read(&pair)
                entries.append(DBusDictionaryEntry(key: key, value: value))
                dbus_message_iter_next(&sub)
            }
            return .dictionary(keySignature: keySignature, valueSignature: valueSignature, entries)
        }

        let elementSignature: String
        if let single = singleCharacterSignature(elementType) {
            elementSignature = single
        } else {
            elementSignature = String(try signature(of: &iter).dropFirst())
        }
        var elements: [DBusValue] = []
        while dbus_message_iter_get_arg_type(&sub) != TypeCode.invalid {
            elements.append(try read(&sub))
            dbus_message_iter_next(&sub)
        }
        return .array(elementSignature: elementSignature, elements)
    }

    /// The key and value signatures of the dictionary at `iter`, whose
    /// elements `first` iterates: read off the first entry when its key and
    /// value are single characters (`a{sv}`, `a{qv}`, `a{ss}`…), the usual
    /// case, else from the array's signature (which libdbus allocates).
    private static func entrySignatures(
        _ iter: inout DBusMessageIter, first: DBusMessageIter
    ) throws(DBusError) -> (key: String, value: String) {
        var first = first
        if dbus_message_iter_get_arg_type(&first) == TypeCode.dictEntry {
            var pair = DBusMessageIter()
            dbus_message_iter_recurse(&first, &pair)
            let key = singleCharacterSignature(dbus_message_iter_get_arg_type(&pair))
            dbus_message_iter_next(&pair)
            if let key, let value = singleCharacterSignature(dbus_message_iter_get_arg_type(&pair)) {
                return (key, value)
            }
        }
        // "a{kv}": the key is one basic type character, the value the rest.
        let signature = try signature(of: &iter)
        let inner = signature.dropFirst(2).dropLast()
        guard let keyCharacter = inner.first else {
            throw .unexpectedReply("malformed dictionary signature \(signature)")
        }
        return (String(keyCharacter), String(inner.dropFirst()))
    }

    /// The signature of a basic type or a variant, one character; `nil` for containers.
    private static func singleCharacterSignature(_ type: Int32) -> String? {
        switch type {
        case TypeCode.array, TypeCode.structure, TypeCode.dictEntry, TypeCode.invalid: nil
        default: UInt8(exactly: type).map { String(UnicodeScalar($0)) }
        }
    }

    /// The signature of the value at `iter`, such as `a{sv}`.
    private static func signature(of iter: inout DBusMessageIter) throws(DBusError) -> String {
        guard let raw = dbus_message_iter_get_signature(&iter) else {
            throw .outOfMemory("reading an array signature")
        }
        defer { dbus_free(raw) }
        return String(cString: raw)
    }
}
