public import Devices

/// A family's seeded simulator behind a family-neutral face, so one session
/// can interleave any mix of simulated devices. Each family's descriptor
/// makes its own (``FamilyDescriptor/makeSimulator(_:)``).
///
/// ```swift
/// var device = FamilyRegistry.builtIn.simulator(of: .fjorden, seed: 1)!
/// let (offset, characteristic, bytes) = device.nextNotification()
/// ```
public protocol SimulatedDevice: Sendable {
    /// The device's family.
    var family: DeviceFamily { get }
    /// The identifier used in topics.
    var identifier: String { get }
    /// A display name.
    var displayName: String { get }
    /// Facts recorded with the device (advertisement, model, ...).
    var facts: [String: String] { get }
    /// The next notification in time order: offset from the session start
    /// (its receive instant, when the simulator delivers as Bluetooth LE
    /// does), characteristic, bytes. A simulator never runs out; the truth
    /// of when it was measured stays with the family's simulator.
    mutating func nextNotification() -> (offset: Duration, characteristic: CharacteristicUUID, bytes: [UInt8])
}

extension SimulatedDevice where Self: NotificationSimulator {
    /// The simulator's next notification.
    public mutating func nextNotification() -> (offset: Duration, characteristic: CharacteristicUUID, bytes: [UInt8]) {
        let next = next()
        return (next.offset, next.characteristic, next.bytes)
    }
}
