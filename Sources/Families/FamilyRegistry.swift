public import Devices

/// The device families a build knows, in a fixed order: the one list every
/// part of the system asks (the decoder of a recorded device, the simulator
/// of a pipeline device, the family an advertisement shows, the streams a
/// pattern can match, the values `--family` accepts).
///
/// ``builtIn`` lists the five families of this package. A registry is a
/// value, so a program (or a test) can add its own families to it:
///
/// ```swift
/// let families = FamilyRegistry.builtIn.adding(.thermometer)
/// let recorder = try families[.thermometer]!.makeRecorder(recorder, options: .init(identifier: "T1", name: "T1"))
/// ```
///
/// The order matters in two places: classification asks families in order,
/// and a simulated device's seed is the session seed mixed with the family's
/// position (so adding a family at the end changes no other family's values).
public struct FamilyRegistry: Sendable {
    /// The families, in order.
    public let descriptors: [FamilyDescriptor]

    /// The families of this package: to add one, add its folder and one line here.
    public static let builtIn = FamilyRegistry([
        .diot,
        .comodule,
        .jacquard,
        .fjorden,
        .obvious,
    ])

    /// A registry of `descriptors`, in order; a later descriptor of a family
    /// already listed is ignored.
    public init(_ descriptors: [FamilyDescriptor]) {
        var seen: Set<DeviceFamily> = []
        self.descriptors = descriptors.filter { seen.insert($0.family).inserted }
    }

    /// This registry with `descriptor` appended (replacing nothing: a family
    /// already listed keeps its descriptor).
    public func adding(_ descriptor: FamilyDescriptor) -> FamilyRegistry {
        FamilyRegistry(descriptors + [descriptor])
    }

    /// The families, in order.
    public var families: [DeviceFamily] { descriptors.map(\.family) }

    /// The descriptor of `family`, or `nil` when the registry does not know it.
    public subscript(family: DeviceFamily) -> FamilyDescriptor? {
        descriptors.first { $0.family == family }
    }

    /// The descriptor of the family named `name` (any case), or `nil`.
    public func descriptor(named name: String) -> FamilyDescriptor? {
        descriptors.first { $0.family.rawValue == name.lowercased() }
    }

    /// The family names, comma-separated, for help texts and error messages.
    public var namesList: String { families.map(\.rawValue).joined(separator: ", ") }

    /// A seeded simulated device of `family`: the family's seed is `seed`
    /// mixed with the family's position in the registry, so one session seed
    /// gives every family its own values; `nil` when the family is unknown
    /// or has no simulator.
    ///
    /// - Parameters:
    ///   - family: The family.
    ///   - seed: The session seed.
    ///   - faults: Inject the family's faults.
    ///   - rate: Notifications per second, for simulators that take a rate.
    ///   - delivery: Deliver as Bluetooth LE does, or `nil` (``SimulationRequest/delivery``).
    public func simulator(
        of family: DeviceFamily, seed: UInt64, faults: Bool = false, rate: Double? = nil,
        delivery: BLEDelivery? = nil
    )
        -> (any SimulatedDevice)?
    {
        guard let position = descriptors.firstIndex(where: { $0.family == family }) else { return nil }
        let familySeed = seed ^ (UInt64(position) << 56)
        return descriptors[position].makeSimulator(
            SimulationRequest(seed: familySeed, faults: faults, rate: rate, delivery: delivery))
    }

    /// The families that have a simulator.
    public var simulatable: [DeviceFamily] { descriptors.filter(\.isSimulatable).map(\.family) }

    /// The family an advertisement identifies, or `nil`: manufacturer data
    /// first, then advertised services, then fallback services, each asking
    /// the families in order.
    ///
    /// - Parameters:
    ///   - manufacturerData: Manufacturer data by company id.
    ///   - serviceUUIDs: Advertised service UUIDs (any case).
    public func family(manufacturerData: [UInt16: [UInt8]], serviceUUIDs: [String]) -> DeviceFamily? {
        if let match = descriptors.first(where: { $0.advertisement.identify?(manufacturerData) != nil }) {
            return match.family
        }
        let services = Set(serviceUUIDs.compactMap(CharacteristicUUID.init))
        if let match = descriptors.first(where: { !services.isDisjoint(with: $0.advertisement.services) }) {
            return match.family
        }
        return descriptors.first { !services.isDisjoint(with: $0.advertisement.fallbackServices) }?.family
    }

    /// The family a device's characteristics identify, or `nil`: the family
    /// with the most characteristics in `characteristics` that are its own
    /// (in its capture profile and no other family's), the first in registry
    /// order on a tie. Standard characteristics
    /// (`CharacteristicUUID.isBluetoothSIGAssigned`: battery, device
    /// information, …) are never evidence: any device may have them, so a
    /// device with only those is of no family.
    ///
    /// - Parameter characteristics: The device's characteristics, as discovered or mapped.
    public func family(characteristics: Set<CharacteristicUUID>) -> DeviceFamily? {
        let evidence = characteristics.filter { !$0.isBluetoothSIGAssigned }
        guard !evidence.isEmpty else { return nil }
        var best: (family: DeviceFamily, score: Int)?
        for descriptor in descriptors {
            let own = Set(descriptor.capture.notified + descriptor.capture.read)
            let others = Set(
                descriptors.filter { $0.family != descriptor.family }.flatMap { $0.capture.notified + $0.capture.read })
            let score = evidence.intersection(own.subtracting(others)).count
            if score > 0, score > best?.score ?? 0 { best = (descriptor.family, score) }
        }
        return best?.family
    }

    /// The service UUIDs a scan for `families` filters on.
    public func serviceUUIDs(for families: [DeviceFamily]) -> [String] {
        let wanted = descriptors.filter { families.contains($0.family) }
        return (wanted.flatMap(\.advertisement.services) + wanted.flatMap(\.advertisement.fallbackServices))
            .map(\.description)
    }
}
