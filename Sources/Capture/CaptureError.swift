/// Why live capture could not start or go on. Each case's ``message`` is the
/// one line `tlm` prints.
public enum CaptureError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The system bus could not be reached.
    case noBus(String)
    /// Nobody owns `org.bluez` on the bus: bluetoothd is not running.
    case bluezUnavailable
    /// BlueZ has no Bluetooth adapter (or none is powered).
    case noAdapter(String)
    /// No device matching the query was found within the time allowed.
    case deviceNotFound(String)
    /// A device was found but its family could not be told; pass it explicitly.
    case unknownFamily(String)
    /// The device lacks a characteristic its family's profile needs.
    case missingCharacteristic(String)
    /// A BlueZ call failed in a way that retrying does not mend.
    case bluez(String)
    /// The bus connection was lost while capturing.
    case busLost(String)

    /// A one-line explanation for the user.
    public var message: String {
        switch self {
        case .noBus(let detail):
            "cannot reach the D-Bus system bus (\(detail)); is dbus running? "
                + "DBUS_SYSTEM_BUS_ADDRESS overrides its address"
        case .bluezUnavailable:
            "BlueZ is not running: nobody owns org.bluez on the system bus (start bluetoothd, "
                + "e.g. `systemctl start bluetooth`)"
        case .noAdapter(let detail): "no Bluetooth adapter: \(detail)"
        case .deviceNotFound(let detail): "device not found: \(detail)"
        case .unknownFamily(let detail): detail
        case .missingCharacteristic(let detail): detail
        case .bluez(let detail): "BlueZ: \(detail)"
        case .busLost(let detail): "lost the D-Bus connection: \(detail)"
        }
    }

    public var description: String { message }
}
