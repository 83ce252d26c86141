public import DBus
public import Recording
public import Snapshots

/// A recording's remote control on the session bus: the object
/// `/org/tlm/Recorder1` with interface `org.tlm.Recorder1`, under the name
/// `org.tlm.Recorder` (when another recorder holds it, under this
/// connection's unique name only).
///
/// - `Snapshot(s reason)`: asks a flight recorder for a snapshot (an error
///   reply, `org.tlm.Recorder1.Error.NotAFlightRecorder`, for an ordinary recording);
/// - `Mark(s note)`: adds a marker (`/tlm/marker`, source `dbus`).
///
/// ```sh
/// dbus-send --session --print-reply --dest=org.tlm.Recorder /org/tlm/Recorder1 \
///     org.tlm.Recorder1.Snapshot string:"operator saw a fall"
/// ```
public final class RecorderBusService: Sendable {
    /// The well-known name requested.
    public static let busName = "org.tlm.Recorder"
    /// The object's path.
    public static let path = "/org/tlm/Recorder1"
    /// The interface.
    public static let interface = "org.tlm.Recorder1"

    private let connection: DBusConnection
    /// This connection's unique name (`:1.42`): the object is always there.
    public let uniqueName: String
    /// Whether this recorder got ``busName`` (another one may hold it).
    public let ownsName: Bool

    private init(connection: DBusConnection, ownsName: Bool) {
        self.connection = connection
        self.uniqueName = connection.uniqueName
        self.ownsName = ownsName
    }

    /// Connects to the session bus and serves the object.
    ///
    /// - Parameters:
    ///   - markers: Where markers go in an ordinary recording.
    ///   - snapshots: The flight recorder, if this is one (its markers go to it too).
    /// - Throws: `DBusError` when there is no session bus or it refuses us.
    public static func start(
        markers: MarkerInbox?, snapshots: SnapshotController?
    ) async throws(DBusError)
        -> RecorderBusService
    {
        let connection = try DBusConnection.session()
        try connection.export(path: path, interface: interface, member: "Snapshot") { arguments throws(DBusError) in
            let reason = try Self.note(arguments, "Snapshot")
            guard let snapshots else {
                throw DBusError(
                    code: .remote, name: interface + ".Error.NotAFlightRecorder",
                    message: "this recording is not a flight recorder (tlm record --snapshot)")
            }
            snapshots.trigger(source: .dbus, reason: reason.isEmpty ? "D-Bus" : reason)
            return []
        }
        try connection.export(path: path, interface: interface, member: "Mark") { arguments throws(DBusError) in
            let text = try Self.note(arguments, "Mark")
            if let snapshots {
                snapshots.mark(source: "dbus", note: text)
            } else {
                markers?.mark(source: "dbus", note: text)
            }
            return []
        }
        let owns = (try? await connection.requestName(busName)) ?? false
        return RecorderBusService(connection: connection, ownsName: owns)
    }

    /// The one string argument of a call of `member`.
    private static func note(_ arguments: [DBusValue], _ member: String) throws(DBusError) -> String {
        guard arguments.count == 1, let text = arguments[0].string else {
            throw .invalidArgument("\(interface).\(member) takes one string")
        }
        return text
    }

    /// Leaves the bus.
    public func close() { connection.close() }
}
