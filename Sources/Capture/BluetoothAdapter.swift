/// A Bluetooth adapter BlueZ exposes (`/org/bluez/hci0`, …).
public struct BluetoothAdapter: Sendable, Hashable {
    /// Its object path.
    public var path: String
    /// Its address, `AA:BB:CC:DD:EE:FF`.
    public var address: String
    /// Whether it is powered.
    public var isPowered: Bool
}
