/// An error from the D-Bus library: a ``code`` to switch on, the D-Bus error
/// ``name`` and a human-readable ``message``.
///
/// Remote errors keep the name the peer replied with, so a BlueZ client can
/// tell `org.bluez.Error.InProgress` from `org.bluez.Error.Failed`:
///
/// ```swift
/// do {
///     _ = try await bus.call(destination: "org.bluez", path: "/org/bluez/hci0/dev_AA",
///                            interface: "org.bluez.Device1", member: "Connect")
/// } catch let error where error.code == .remote && error.name == "org.bluez.Error.InProgress" {
///     // already connecting: wait for Connected instead
/// } catch {
///     print(error)   // "org.freedesktop.DBus.Error.NoReply: no reply within 25 s (timeout)"
/// }
/// ```
public struct DBusError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is.
    ///
    /// A struct with static members rather than an enum, so new codes do not
    /// break callers' `switch` statements.
    ///
    /// ```swift
    /// if error.code == .timeout { retry() }
    /// ```
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Value: String, Sendable, Hashable {
            case timeout, noReply, disconnected, cancelled, invalidArgument, remote
            case connectionFailed, outOfMemory, unexpectedReply
        }

        private let value: Value

        private init(_ value: Value) {
            self.value = value
        }

        /// Our deadline for a method call passed without a reply; the call was cancelled.
        public static let timeout = Code(.timeout)
        /// The bus reported that no reply will come (`org.freedesktop.DBus.Error.NoReply`),
        /// for example because the callee left the bus without replying.
        public static let noReply = Code(.noReply)
        /// The connection is closed or the bus went away.
        public static let disconnected = Code(.disconnected)
        /// The calling task was cancelled; the method call was cancelled.
        public static let cancelled = Code(.cancelled)
        /// An argument is not valid D-Bus (object path, name, string, signature, nesting…).
        /// Nothing was sent.
        public static let invalidArgument = Code(.invalidArgument)
        /// The peer replied with an error; ``DBusError/name`` is its D-Bus error name.
        public static let remote = Code(.remote)
        /// The bus address could not be reached or the bus refused us.
        public static let connectionFailed = Code(.connectionFailed)
        /// libdbus could not allocate memory.
        public static let outOfMemory = Code(.outOfMemory)
        /// A reply or signal did not have the shape the caller expected.
        public static let unexpectedReply = Code(.unexpectedReply)

        /// The code's name, for example `timeout`.
        ///
        /// ```swift
        /// print(DBusError.Code.timeout)   // timeout
        /// ```
        public var description: String { value.rawValue }
    }

    /// What kind of failure this is.
    public var code: Code
    /// The D-Bus error name, for example `org.bluez.Error.InProgress` or
    /// `org.freedesktop.DBus.Error.InvalidArgs`.
    public var name: String
    /// What happened, in words.
    public var message: String

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: What kind of failure this is.
    ///   - name: The D-Bus error name.
    ///   - message: What happened.
    ///
    /// ```swift
    /// throw DBusError(code: .remote, name: "org.bluez.Error.NotReady", message: "Resource Not Ready")
    /// ```
    public init(code: Code, name: String, message: String) {
        self.code = code
        self.name = name
        self.message = message
    }

    /// `name: message (code)`.
    ///
    /// ```swift
    /// print(DBusError.invalidArgument("bad object path \"x\""))
    /// // org.freedesktop.DBus.Error.InvalidArgs: bad object path "x" (invalidArgument)
    /// ```
    public var description: String { "\(name): \(message) (\(code))" }

    /// An invalid argument, caught before anything was sent.
    ///
    /// - Parameter message: What is wrong and where.
    /// - Returns: An error with code ``Code/invalidArgument`` and name
    ///   `org.freedesktop.DBus.Error.InvalidArgs`.
    ///
    /// ```swift
    /// throw DBusError.invalidArgument("object path must start with /")
    /// ```
    public static func invalidArgument(_ message: String) -> DBusError {
        DBusError(code: .invalidArgument, name: "org.freedesktop.DBus.Error.InvalidArgs", message: message)
    }

    /// The connection is closed or the bus went away.
    ///
    /// - Parameter message: What happened.
    /// - Returns: An error with code ``Code/disconnected`` and name
    ///   `org.freedesktop.DBus.Error.Disconnected`.
    ///
    /// ```swift
    /// if error.code == .disconnected { reconnect() }
    /// ```
    public static func disconnected(_ message: String = "the connection to the bus is closed") -> DBusError {
        DBusError(code: .disconnected, name: "org.freedesktop.DBus.Error.Disconnected", message: message)
    }

    /// A method call's deadline passed.
    ///
    /// - Parameter message: What timed out.
    /// - Returns: An error with code ``Code/timeout`` and name
    ///   `org.freedesktop.DBus.Error.NoReply`, as libdbus names its own timeouts.
    ///
    /// ```swift
    /// let error = DBusError.timeout("no reply within 1 s")
    /// ```
    public static func timeout(_ message: String) -> DBusError {
        DBusError(code: .timeout, name: "org.freedesktop.DBus.Error.NoReply", message: message)
    }

    /// The calling task was cancelled.
    ///
    /// - Parameter message: What was cancelled.
    /// - Returns: An error with code ``Code/cancelled``.
    ///
    /// ```swift
    /// let error = DBusError.cancelled("call cancelled")
    /// ```
    public static func cancelled(_ message: String = "the calling task was cancelled") -> DBusError {
        DBusError(code: .cancelled, name: "org.freedesktop.DBus.Error.Cancelled", message: message)
    }

    /// A reply or signal with an unexpected shape.
    ///
    /// - Parameter message: What was expected and what came.
    /// - Returns: An error with code ``Code/unexpectedReply``.
    ///
    /// ```swift
    /// guard let names = reply.first?.array else { throw DBusError.unexpectedReply("ListNames: expected as") }
    /// ```
    public static func unexpectedReply(_ message: String) -> DBusError {
        DBusError(code: .unexpectedReply, name: "org.freedesktop.DBus.Error.InvalidSignature", message: message)
    }

    /// libdbus could not allocate memory.
    static func outOfMemory(_ what: String) -> DBusError {
        DBusError(code: .outOfMemory, name: "org.freedesktop.DBus.Error.NoMemory", message: "out of memory: \(what)")
    }

    /// An error reply from a peer or the bus, by its name.
    static func reply(name: String, message: String) -> DBusError {
        switch name {
        case "org.freedesktop.DBus.Error.NoReply", "org.freedesktop.DBus.Error.Timeout",
            "org.freedesktop.DBus.Error.TimedOut":
            DBusError(code: .noReply, name: name, message: message)
        case "org.freedesktop.DBus.Error.Disconnected":
            DBusError(code: .disconnected, name: name, message: message)
        case "org.freedesktop.DBus.Error.NoMemory":
            DBusError(code: .outOfMemory, name: name, message: message)
        default:
            DBusError(code: .remote, name: name, message: message)
        }
    }
}
