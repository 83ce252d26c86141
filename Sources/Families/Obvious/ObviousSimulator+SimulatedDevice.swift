public import Devices
import Foundation

extension ObviousSimulator: SimulatedDevice {
    /// `DeviceFamily.obvious`.
    public var family: DeviceFamily { .obvious }
    /// `OBV-` and four hex digits from the seed.
    public var identifier: String { "OBV-" + String(format: "%04X", (seed &* 0x9E37_79B9_7F4A_7C15) >> 48) }
    /// The identifier.
    public var displayName: String { identifier }
    /// None.
    public var facts: [String: String] { [:] }
}
