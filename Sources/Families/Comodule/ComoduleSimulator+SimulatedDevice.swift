public import Devices

extension ComoduleSimulator: SimulatedDevice {
    /// `DeviceFamily.comodule`.
    public var family: DeviceFamily { .comodule }
    /// `SCOOT-` and the first two bytes of the motor serial, in hex.
    public var identifier: String { "SCOOT-" + hex(Array(motorSerial.prefix(2))).uppercased() }
    /// The identifier.
    public var displayName: String { identifier }
    /// The motor serial and the property table.
    public var facts: [String: String] { ["motor_serial": hex(motorSerial), "property_table": "default (profile v1)"] }
}
