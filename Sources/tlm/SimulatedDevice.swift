import ArgumentParser
import Devices
import Foundation
import Recording

/// A family's seeded simulator behind a family-neutral face, so one session
/// can interleave any mix of simulated devices. Each family's simulator
/// conforms in `Simulators+SimulatedDevice.swift`.
protocol SimulatedDevice: Sendable {
    /// The device's family.
    static var family: DeviceFamily { get }
    /// The identifier used in topics.
    var identifier: String { get }
    /// A display name.
    var displayName: String { get }
    /// Facts recorded with the device (advertisement, model, ...).
    var facts: [String: String] { get }
    /// The next notification in time order: offset from the session start, characteristic, bytes.
    mutating func nextNotification() -> (offset: Duration, characteristic: CharacteristicUUID, bytes: [UInt8])
    /// Registers the device with a recorder and returns its device recorder.
    func makeRecorder(_ recorder: Recorder) throws(RecordingError) -> any DeviceRecorder
}

extension DiotSimulator: SimulatedDevice {
    static var family: DeviceFamily { .diot }
    var identifier: String { deviceIdentifier }
    var displayName: String { deviceName }
    var facts: [String: String] { ["advertisement": hex(advertisement())] }

    func makeRecorder(_ recorder: Recorder) throws(RecordingError) -> any DeviceRecorder {
        try DeviceStreamRecorder(recorder: recorder, decoder: DiotDecoder(), identifier: identifier,
                                 name: displayName, metadata: facts)
    }
}

extension JacquardSimulator: SimulatedDevice {
    static var family: DeviceFamily { .jacquard }
    var identifier: String { tagUUID.filter { $0 != "-" }.lowercased() }
    var displayName: String { "Jacquard-" + identifier.suffix(4).uppercased() }
    var facts: [String: String] { ["tag_uuid": tagUUID, "vendor_id": String(vendorID), "product_id": String(productID)] }

    func makeRecorder(_ recorder: Recorder) throws(RecordingError) -> any DeviceRecorder {
        try DeviceStreamRecorder(recorder: recorder, decoder: JacquardDecoder(), identifier: identifier,
                                 name: displayName, metadata: facts)
    }
}

extension ComoduleSimulator: SimulatedDevice {
    static var family: DeviceFamily { .comodule }
    var identifier: String { "SCOOT-" + hex(Array(motorSerial.prefix(2))).uppercased() }
    var displayName: String { identifier }
    var facts: [String: String] { ["motor_serial": hex(motorSerial), "property_table": "default (profile v1)"] }

    func makeRecorder(_ recorder: Recorder) throws(RecordingError) -> any DeviceRecorder {
        try DeviceStreamRecorder(recorder: recorder, decoder: ComoduleDecoder(), identifier: identifier,
                                 name: displayName, metadata: facts)
    }
}

extension FjordenSimulator: SimulatedDevice {
    static var family: DeviceFamily { .fjorden }
    var identifier: String { deviceInformation.first { $0.field == .serialNumber }?.value ?? "GRIP-\(seed % 10_000)" }
    var displayName: String { "Fjorden grip " + identifier }
    var facts: [String: String] {
        Dictionary(deviceInformation.map { ($0.field.rawValue, $0.value) }, uniquingKeysWith: { _, last in last })
    }

    func makeRecorder(_ recorder: Recorder) throws(RecordingError) -> any DeviceRecorder {
        try DeviceStreamRecorder(recorder: recorder, decoder: FjordenDecoder(), identifier: identifier,
                                 name: displayName, metadata: facts)
    }
}

extension ObviousSimulator: SimulatedDevice {
    static var family: DeviceFamily { .obvious }
    var identifier: String { "OBV-" + String(format: "%04X", (seed &* 0x9E37_79B9_7F4A_7C15) >> 48) }
    var displayName: String { identifier }
    var facts: [String: String] { [:] }

    func makeRecorder(_ recorder: Recorder) throws(RecordingError) -> any DeviceRecorder {
        try DeviceStreamRecorder(recorder: recorder, decoder: ObviousDecoder(), identifier: identifier,
                                 name: displayName, metadata: facts)
    }
}

/// How simulated devices behave.
enum SimulationScenario: String, CaseIterable, ExpressibleByArgument {
    /// Well-behaved devices: no malformed packets, no disconnects.
    case clean
    /// Each family's fault-injecting preset: jitter, bursts, disconnects and
    /// reconnects, sequence gaps and malformed packets (recorded as loss).
    case faults
}

/// The simulated devices for a session: one per family, each seeded from the
/// session seed and the family, so adding a family changes no other's values.
func simulatedDevices(families: [DeviceFamily], seed: UInt64, scenario: SimulationScenario) -> [any SimulatedDevice] {
    let faults = scenario == .faults
    return families.map { family -> any SimulatedDevice in
        let familySeed = seed ^ (UInt64(DeviceFamily.allCases.firstIndex(of: family)!) << 56)
        return switch family {
        case .diot: DiotSimulator(seed: seed, configuration: faults ? .stress : .default)
        case .jacquard: JacquardSimulator(seed: familySeed, configuration: faults ? .stress : .default)
        case .comodule: ComoduleSimulator(seed: familySeed, configuration: faults ? .default : .clean)
        case .fjorden: FjordenSimulator(seed: familySeed, configuration: faults ? .default : .clean)
        case .obvious: ObviousSimulator(seed: familySeed, configuration: faults ? .default : .clean)
        }
    }
}

/// The families `tlm record --simulate` can simulate: all of them.
let simulatableFamilies: [DeviceFamily] = DeviceFamily.allCases

extension SimulatedDevice where Self: NotificationSimulator {
    mutating func nextNotification() -> (offset: Duration, characteristic: CharacteristicUUID, bytes: [UInt8]) {
        let next = next()
        return (next.offset, next.characteristic, next.bytes)
    }
}

/// Lower-case hex of bytes.
func hex(_ bytes: [UInt8]) -> String {
    bytes.map { String(format: "%02x", $0) }.joined()
}
