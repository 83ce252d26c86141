import CDBus

/// Owns one `DBusMessage*` (unref'd in `deinit`).
///
/// Not `Sendable`: libdbus messages are not locked, so one message is only
/// ever touched by one thread at a time. It crosses to the event-loop thread
/// in a ``MessageTransfer``, after which the sender no longer touches it.
final class Message {
    let raw: OpaquePointer

    init(taking raw: OpaquePointer) {
        self.raw = raw
    }

    deinit {
        dbus_message_unref(raw)
    }

    /// A method call, its names checked first.
    static func methodCall(
        destination: String?, path: String, interface: String?, member: String
    ) throws(DBusError) -> Message {
        if let destination { try Validation.busName(destination, "destination") }
        try Validation.objectPath(path)
        if let interface { try Validation.interface(interface) }
        try Validation.member(member)
        guard let raw = dbus_message_new_method_call(destination, path, interface, member) else {
            throw .outOfMemory("method call message")
        }
        return Message(taking: raw)
    }

    /// A signal, its names checked first.
    static func signal(path: String, interface: String, member: String) throws(DBusError) -> Message {
        try Validation.objectPath(path)
        try Validation.interface(interface)
        try Validation.member(member)
        guard let raw = dbus_message_new_signal(path, interface, member) else {
            throw .outOfMemory("signal message")
        }
        return Message(taking: raw)
    }

    /// A message read from its wire form, as libdbus reads one off a
    /// socket: checked in full (header, signature, every value and length)
    /// before anything reads it, so malformed bytes are an error here, never
    /// a fault in ``arguments()``.
    static func demarshal(_ bytes: [UInt8]) throws(DBusError) -> Message {
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        // libdbus needs a whole fixed header (16 bytes) to tell a message's length.
        guard bytes.count >= 16, bytes.count <= Int(Int32.max) else {
            throw .unexpectedReply("malformed D-Bus message: \(bytes.count) bytes cannot be a whole message")
        }
        let raw = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { (chars) -> OpaquePointer? in
                let needed = dbus_message_demarshal_bytes_needed(chars.baseAddress, Int32(chars.count))
                guard needed == Int32(chars.count) else { return nil }
                return dbus_message_demarshal(chars.baseAddress, Int32(chars.count), &error)
            }
        }
        guard let raw else {
            let message = error.message.map { String(cString: $0) } ?? "its length fields disagree with its size"
            throw .unexpectedReply("malformed D-Bus message: \(message)")
        }
        return Message(taking: raw)
    }

    /// The message's wire form (what ``demarshal(_:)`` reads).
    func marshal() throws(DBusError) -> [UInt8] {
        if dbus_message_get_serial(raw) == 0 { dbus_message_set_serial(raw, 1) }
        var data: UnsafeMutablePointer<CChar>?
        var count: Int32 = 0
        guard dbus_message_marshal(raw, &data, &count) != 0, let data else {
            throw .outOfMemory("marshalling a message")
        }
        defer { dbus_free(data) }
        return Array(UnsafeRawBufferPointer(start: data, count: Int(count)))
    }

    var type: Int32 { dbus_message_get_type(raw) }
    var sender: String? { dbus_message_get_sender(raw).map { String(cString: $0) } }
    var destination: String? { dbus_message_get_destination(raw).map { String(cString: $0) } }
    var path: String? { dbus_message_get_path(raw).map { String(cString: $0) } }
    var interface: String? { dbus_message_get_interface(raw).map { String(cString: $0) } }
    var member: String? { dbus_message_get_member(raw).map { String(cString: $0) } }
    var errorName: String? { dbus_message_get_error_name(raw).map { String(cString: $0) } }
    var signature: String { dbus_message_get_signature(raw).map { String(cString: $0) } ?? "" }

    /// Appends arguments after checking all of them, so a bad one leaves the
    /// message untouched.
    func append(_ arguments: [DBusValue]) throws(DBusError) {
        var total = signature.utf8.count
        for (index, argument) in arguments.enumerated() {
            try Validation.argument(argument, "argument \(index)")
            total += argument.signature.utf8.count
        }
        guard total <= Validation.maximumSignatureLength else {
            throw .invalidArgument(
                "the arguments' signature would be \(total) characters long; D-Bus allows \(Validation.maximumSignatureLength)"
            )
        }
        var iter = DBusMessageIter()
        dbus_message_iter_init_append(raw, &iter)
        for argument in arguments {
            try Marshalling.append(argument, to: &iter)
        }
    }

    /// Reads every argument.
    func arguments() throws(DBusError) -> [DBusValue] {
        try Self.arguments(of: raw)
    }

    /// Reads every argument of a message this thread holds (the event loop
    /// reads a dispatched signal in place, without taking a reference).
    static func arguments(of raw: OpaquePointer) throws(DBusError) -> [DBusValue] {
        var iter = DBusMessageIter()
        guard dbus_message_iter_init(raw, &iter) != 0 else { return [] }
        var values: [DBusValue] = []
        values.reserveCapacity(4)
        while dbus_message_iter_get_arg_type(&iter) != TypeCode.invalid {
            values.append(try Marshalling.read(&iter))
            dbus_message_iter_next(&iter)
        }
        return values
    }
}

@available(*, unavailable, message: "libdbus messages are not thread-safe; hand one over in a MessageTransfer")
extension Message: Sendable {}

/// Hands a message to another thread. Safety: the sender gives the message up
/// when it makes the transfer and never touches it again; only the receiving
/// thread uses it from then on.
struct MessageTransfer: @unchecked Sendable {
    let message: Message
}
