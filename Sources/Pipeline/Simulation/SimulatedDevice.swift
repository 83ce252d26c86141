package import Devices
import Foundation
package import Recording

/// A family's seeded simulator behind a family-neutral face, so one session
/// can interleave any mix of simulated devices. Each family's simulator
/// conforms below.
package protocol SimulatedDevice: Sendable {
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
    /// Registers the device with a recorder and returns its device recorder;
    /// `recordsTypedStream` and `observer` are ``DeviceStreamRecorder``'s hooks.
    func makeRecorder(_ recorder: Recorder, recordsTypedStream: ((String) -> Bool)?,
                      observer: ((ObservedValue) throws(RecordingError) -> Void)?) throws(RecordingError)
        -> any DeviceRecorder
}

extension SimulatedDevice {
    /// Registers the device with a recorder, writing every stream and observing nothing.
    package func makeRecorder(_ recorder: Recorder) throws(RecordingError) -> any DeviceRecorder {
        try makeRecorder(recorder, recordsTypedStream: nil, observer: nil)
    }
}

extension DiotSimulator: SimulatedDevice {
    package static var family: DeviceFamily { .diot }
    package var identifier: String { deviceIdentifier }
    package var displayName: String { deviceName }
    package var facts: [String: String] { ["advertisement": hex(advertisement())] }

    package func makeRecorder(_ recorder: Recorder, recordsTypedStream: ((String) -> Bool)?,
                              observer: ((ObservedValue) throws(RecordingError) -> Void)?) throws(RecordingError)
        -> any DeviceRecorder
    {
        try DeviceStreamRecorder(recorder: recorder, decoder: DiotDecoder(), identifier: identifier,
                                 name: displayName, metadata: facts,
                                 recordsTypedStream: recordsTypedStream, observer: observer)
    }
}

extension JacquardSimulator: SimulatedDevice {
    package static var family: DeviceFamily { .jacquard }
    package var identifier: String { tagUUID.filter { $0 != "-" }.lowercased() }
    package var displayName: String { "Jacquard-" + identifier.suffix(4).uppercased() }
    package var facts: [String: String] { ["tag_uuid": tagUUID, "vendor_id": String(vendorID), "product_id": String(productID)] }

    package func makeRecorder(_ recorder: Recorder, recordsTypedStream: ((String) -> Bool)?,
                              observer: ((ObservedValue) throws(RecordingError) -> Void)?) throws(RecordingError)
        -> any DeviceRecorder
    {
        try DeviceStreamRecorder(recorder: recorder, decoder: JacquardDecoder(), identifier: identifier,
                                 name: displayName, metadata: facts,
                                 recordsTypedStream: recordsTypedStream, observer: observer)
    }
}

extension ComoduleSimulator: SimulatedDevice {
    package static var family: DeviceFamily { .comodule }
    package var identifier: String { "SCOOT-" + hex(Array(motorSerial.prefix(2))).uppercased() }
    package var displayName: String { identifier }
    package var facts: [String: String] { ["motor_serial": hex(motorSerial), "property_table": "default (profile v1)"] }

    package func makeRecorder(_ recorder: Recorder, recordsTypedStream: ((String) -> Bool)?,
                              observer: ((ObservedValue) throws(RecordingError) -> Void)?) throws(RecordingError)
        -> any DeviceRecorder
    {
        try DeviceStreamRecorder(recorder: recorder, decoder: ComoduleDecoder(), identifier: identifier,
                                 name: displayName, metadata: facts,
                                 recordsTypedStream: recordsTypedStream, observer: observer)
    }
}

extension FjordenSimulator: SimulatedDevice {
    package static var family: DeviceFamily { .fjorden }
    package var identifier: String { deviceInformation.first { $0.field == .serialNumber }?.value ?? "GRIP-\(seed % 10_000)" }
    package var displayName: String { "Fjorden grip " + identifier }
    package var facts: [String: String] {
        Dictionary(deviceInformation.map { ($0.field.rawValue, $0.value) }, uniquingKeysWith: { _, last in last })
    }

    package func makeRecorder(_ recorder: Recorder, recordsTypedStream: ((String) -> Bool)?,
                              observer: ((ObservedValue) throws(RecordingError) -> Void)?) throws(RecordingError)
        -> any DeviceRecorder
    {
        try DeviceStreamRecorder(recorder: recorder, decoder: FjordenDecoder(), identifier: identifier,
                                 name: displayName, metadata: facts,
                                 recordsTypedStream: recordsTypedStream, observer: observer)
    }
}

extension ObviousSimulator: SimulatedDevice {
    package static var family: DeviceFamily { .obvious }
    package var identifier: String { "OBV-" + String(format: "%04X", (seed &* 0x9E37_79B9_7F4A_7C15) >> 48) }
    package var displayName: String { identifier }
    package var facts: [String: String] { [:] }

    package func makeRecorder(_ recorder: Recorder, recordsTypedStream: ((String) -> Bool)?,
                              observer: ((ObservedValue) throws(RecordingError) -> Void)?) throws(RecordingError)
        -> any DeviceRecorder
    {
        try DeviceStreamRecorder(recorder: recorder, decoder: ObviousDecoder(), identifier: identifier,
                                 name: displayName, metadata: facts,
                                 recordsTypedStream: recordsTypedStream, observer: observer)
    }
}

/// The simulated devices for a session: one per family, each seeded from the
/// session seed and the family, so adding a family changes no other's values.
package func simulatedDevices(families: [DeviceFamily], seed: UInt64, scenario: SimulationScenario) -> [any SimulatedDevice] {
    families.map { simulatedDevice(family: $0, seed: seed, scenario: scenario) }
}

/// The simulated device of a family, seeded from the session seed and the
/// family as ``simulatedDevices(families:seed:scenario:)`` does; `diotRate`
/// makes a DIoT device an IMU (acceleration and angular rate only) at that
/// many notifications per second.
package func simulatedDevice(family: DeviceFamily, seed: UInt64, scenario: SimulationScenario,
                             diotRate: Double? = nil) -> any SimulatedDevice {
    let faults = scenario == .faults
    let familySeed = seed ^ (UInt64(DeviceFamily.allCases.firstIndex(of: family) ?? 0) << 56)
    return switch family {
        case .diot:
            if let diotRate {
                DiotSimulator(seed: seed, configuration: faults ? .stressed(.imu(rate: diotRate)) : .imu(rate: diotRate))
            } else {
                DiotSimulator(seed: seed, configuration: faults ? .stress : .default)
            }
        case .jacquard: JacquardSimulator(seed: familySeed, configuration: faults ? .stress : .default)
        case .comodule: ComoduleSimulator(seed: familySeed, configuration: faults ? .default : .clean)
        case .fjorden: FjordenSimulator(seed: familySeed, configuration: faults ? .default : .clean)
        case .obvious: ObviousSimulator(seed: familySeed, configuration: faults ? .default : .clean)
    }
}

extension DiotSimulator.Configuration {
    /// `base`'s bindings with the link faults of ``stress``.
    static func stressed(_ base: Self) -> Self {
        var configuration = Self.stress
        configuration.bindings = base.bindings
        return configuration
    }
}

/// The families `tlm record --simulate` can simulate: all of them.
package let simulatableFamilies: [DeviceFamily] = DeviceFamily.allCases

extension SimulatedDevice where Self: NotificationSimulator {
    package mutating func nextNotification() -> (offset: Duration, characteristic: CharacteristicUUID, bytes: [UInt8]) {
        let next = next()
        return (next.offset, next.characteristic, next.bytes)
    }
}

