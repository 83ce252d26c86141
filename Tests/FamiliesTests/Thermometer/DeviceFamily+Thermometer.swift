import Devices

extension DeviceFamily {
    /// A toy family that lives entirely in this test target: a BLE
    /// thermometer notifying its temperature. It proves that a family is its
    /// folder plus one line in a registry (`docs/adding-a-family.md`).
    static let thermometer = DeviceFamily(rawValue: "thermometer")!
}
