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

    mutating func nextNotification() -> (offset: Duration, characteristic: CharacteristicUUID, bytes: [UInt8]) {
        let next = next()
        return (next.offset, next.characteristic, next.bytes)
    }

    func makeRecorder(_ recorder: Recorder) throws(RecordingError) -> any DeviceRecorder {
        try DeviceStreamRecorder(recorder: recorder, decoder: DiotDecoder(), identifier: identifier,
                                 name: displayName, metadata: facts)
    }
}

/// The simulated devices for a session: one per family, each seeded from the
/// session seed and the family, so adding a family changes no other's values.
func simulatedDevices(families: [DeviceFamily], seed: UInt64) -> [any SimulatedDevice] {
    families.compactMap { family -> (any SimulatedDevice)? in
        switch family {
        case .diot: DiotSimulator(seed: seed)
        default: nil
        }
    }
}

/// The families `tlm record --simulate` can simulate.
let simulatableFamilies: [DeviceFamily] = [.diot]

/// Lower-case hex of bytes.
func hex(_ bytes: [UInt8]) -> String {
    bytes.map { String(format: "%02x", $0) }.joined()
}
