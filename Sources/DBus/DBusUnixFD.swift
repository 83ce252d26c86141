import Glibc
import Locking
import Streams

/// A unix file descriptor carried in a D-Bus message (type `h`), which owns
/// its descriptor.
///
/// The descriptor is closed when the last reference to this object goes away,
/// unless you ``take()`` it first (then closing it is your job) or
/// ``close()`` it earlier. Descriptors read from a message are fresh
/// duplicates libdbus made for us, so they always belong to the
/// `DBusUnixFD` that wraps them.
///
/// ```swift
/// // BlueZ AcquireNotify replies (h fd, q mtu)
/// let reply = try await bus.call(destination: "org.bluez", path: characteristic,
///                                interface: "org.bluez.GattCharacteristic1", member: "AcquireNotify",
///                                arguments: [.vardict([:])])
/// guard let socket = reply.first?.unixFD?.take() else { throw … }
/// defer { close(socket) }
/// ```
///
/// Equality and hashing are by identity: two objects are equal only if they
/// are the same object, even if they hold duplicates of one open file.
public final class DBusUnixFD: Sendable, Hashable, CustomStringConvertible {
    private let descriptor: Locked<Int32?>

    /// Wraps a descriptor you own; it is closed when this object goes away.
    ///
    /// - Parameter fileDescriptor: An open descriptor, now owned by this object.
    ///
    /// ```swift
    /// var fds: [Int32] = [0, 0]
    /// pipe(&fds)
    /// let readEnd = DBusUnixFD(taking: fds[0])
    /// ```
    public init(taking fileDescriptor: Int32) {
        descriptor = Locked(fileDescriptor)
    }

    /// Duplicates a descriptor you keep owning (close-on-exec).
    ///
    /// - Parameter fileDescriptor: An open descriptor; it stays yours.
    /// - Throws: ``DBusError/Code/invalidArgument`` when the descriptor is not open.
    ///
    /// ```swift
    /// let stdoutCopy = try DBusUnixFD(duplicating: 1)
    /// ```
    public init(duplicating fileDescriptor: Int32) throws(DBusError) {
        let copy = fcntl(fileDescriptor, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0 else {
            throw .invalidArgument("cannot duplicate file descriptor \(fileDescriptor): errno \(errno)")
        }
        descriptor = Locked(copy)
    }

    deinit {
        if let fd = descriptor.withLock({ $0.take() }) {
            Glibc.close(fd)
        }
    }

    /// The descriptor, still owned by this object; `nil` after ``take()`` or ``close()``.
    ///
    /// Use it only while you hold this object.
    ///
    /// ```swift
    /// if let fd = value.unixFD?.fileDescriptor { _ = read(fd, &buffer, buffer.count) }
    /// ```
    public var fileDescriptor: Int32? {
        descriptor.withLock { $0 }
    }

    /// Takes the descriptor out: from now on you close it, and this object holds nothing.
    ///
    /// - Returns: The descriptor, or `nil` if it was already taken or closed.
    ///
    /// ```swift
    /// guard let fd = handle.take() else { return }
    /// defer { close(fd) }
    /// ```
    public func take() -> Int32? {
        descriptor.withLock { $0.take() }
    }

    /// Closes the descriptor now instead of when this object goes away.
    ///
    /// Does nothing if it was already taken or closed.
    ///
    /// ```swift
    /// handle.close()
    /// ```
    public func close() {
        if let fd = take() {
            Glibc.close(fd)
        }
    }

    /// Identity: `lhs === rhs`.
    ///
    /// ```swift
    /// let a = try DBusUnixFD(duplicating: 0)
    /// a == a   // true
    /// ```
    public static func == (lhs: DBusUnixFD, rhs: DBusUnixFD) -> Bool {
        lhs === rhs
    }

    /// Hashes the object's identity.
    ///
    /// ```swift
    /// var seen = Set<DBusUnixFD>(); seen.insert(handle)
    /// ```
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }

    /// `fd 7`, or `fd (closed)`.
    ///
    /// ```swift
    /// print(handle)   // fd 7
    /// ```
    public var description: String {
        fileDescriptor.map { "fd \($0)" } ?? "fd (closed)"
    }
}
