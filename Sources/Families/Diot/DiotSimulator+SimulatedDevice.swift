public import Devices

extension DiotSimulator: SimulatedDevice {
    /// `DeviceFamily.diot`.
    public var family: DeviceFamily { .diot }
    /// The device UUID of its advertisement, as a live DIoT device is named.
    public var identifier: String { deviceIdentifier }
    /// `DIoT-` and the identifier's last four digits.
    public var displayName: String { deviceName }
    /// The advertisement it sends.
    public var facts: [String: String] { ["advertisement": hex(advertisement())] }
}

extension DiotSimulator.Configuration {
    /// `base`'s bindings with the link faults of ``stress``.
    static func stressed(_ base: Self) -> Self {
        var configuration = Self.stress
        configuration.bindings = base.bindings
        return configuration
    }
}
