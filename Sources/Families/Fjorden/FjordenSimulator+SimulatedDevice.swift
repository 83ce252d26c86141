public import Devices

extension FjordenSimulator: SimulatedDevice {
    /// `DeviceFamily.fjorden`.
    public var family: DeviceFamily { .fjorden }
    /// The serial number of its device information.
    public var identifier: String {
        deviceInformation.first { $0.field == .serialNumber }?.value ?? "GRIP-\(seed % 10_000)"
    }
    /// `Fjorden grip` and the identifier.
    public var displayName: String { "Fjorden grip " + identifier }
    /// Its device information fields.
    public var facts: [String: String] {
        Dictionary(deviceInformation.map { ($0.field.rawValue, $0.value) }, uniquingKeysWith: { _, last in last })
    }
}
