/// Names of the BlueZ D-Bus API this module speaks (BlueZ 5.66, Debian 12):
/// the service, its object-manager root and the interfaces it uses.
enum BlueZ {
    /// The service name of `bluetoothd` on the system bus.
    static let service = "org.bluez"
    /// Where BlueZ attaches its object manager.
    static let root = "/"
    static let objectManager = "org.freedesktop.DBus.ObjectManager"
    static let properties = "org.freedesktop.DBus.Properties"
    static let adapter = "org.bluez.Adapter1"
    static let device = "org.bluez.Device1"
    static let gattService = "org.bluez.GattService1"
    static let characteristic = "org.bluez.GattCharacteristic1"

    /// Errors that mean "the object is gone": a removed device, a device
    /// forgotten after discovery, a restarted daemon. libdbus answers a
    /// call on a path nobody exports with `UnknownMethod`.
    static let objectGoneErrors: Set<String> = [
        "org.freedesktop.DBus.Error.UnknownObject",
        "org.freedesktop.DBus.Error.UnknownMethod",
        "org.freedesktop.DBus.Error.ServiceUnknown",
        "org.freedesktop.DBus.Error.NameHasNoOwner",
    ]
}
