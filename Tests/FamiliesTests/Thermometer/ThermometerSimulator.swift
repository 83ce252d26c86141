import Devices
import Families
import Foundation

/// A seeded thermometer: a reading every 100 ms around 21 °C; with faults,
/// every tenth notification is three bytes long (malformed).
struct ThermometerSimulator: NotificationSimulator, SimulatedDevice {
    let seed: UInt64
    let faults: Bool
    private var count = 0

    init(seed: UInt64, faults: Bool) {
        self.seed = seed
        self.faults = faults
    }

    var family: DeviceFamily { .thermometer }
    var identifier: String { "THERMO_" + String(seed % 65_536, radix: 16, uppercase: true) }
    var displayName: String { "Thermometer " + identifier }
    var facts: [String: String] { ["model": "toy"] }

    /// The temperature of the `index`th reading, in hundredths of a degree.
    static func centidegrees(seed: UInt64, index: Int) -> Int16 {
        Int16(2_100 + Int(sin(Double(index) / 10) * 150) + Int((seed &+ UInt64(index)) % 7))
    }

    mutating func next() -> SimulatedPacket<ThermometerReading> {
        defer { count += 1 }
        let offset = Duration.milliseconds(100 * count)
        if faults, count % 10 == 9 {
            return SimulatedPacket(
                offset: offset, characteristic: ThermometerGATT.temperature, bytes: [1, 2, 3],
                expected: nil)
        }
        let value = Self.centidegrees(seed: seed, index: count)
        let bits = UInt16(bitPattern: value)
        return SimulatedPacket(
            offset: offset, characteristic: ThermometerGATT.temperature,
            bytes: [UInt8(bits & 0xFF), UInt8(bits >> 8)],
            expected: ThermometerReading(celsius: Double(value) / 100))
    }
}
