public import Devices
public import Families
public import Pipeline

/// The devices `tlm record` is asked to record, as the command line names
/// them, checked and turned into a pipeline: simulated families, or live
/// devices (an address or an advertised name each) with the families given
/// for them (none, one for all, or one per device; the others are told by
/// their advertisements).
///
/// ```swift
/// let request = try DeviceRequest.live(["C0:FF:EE:00:00:01", "Jacquard-A316"], families: [.diot, .jacquard])
/// let pipeline = try await request.pipeline { query in try await central.find(query).family }
/// ```
public enum DeviceRequest: Sendable, Hashable {
    /// Simulated devices, one per family.
    case simulatedFamilies([DeviceFamily])
    /// Live devices, by address or name, each with its family when given.
    case liveDevices([LiveDevice])

    /// A live device asked for: its address or advertised name, and its family when given.
    public struct LiveDevice: Sendable, Hashable {
        /// The address (`C0:FF:EE:00:00:01`) or the advertised name.
        public var query: String
        /// The family given for it; `nil` to tell it from its advertisement.
        public var family: DeviceFamily?

        /// A device by address or name, of `family` if given.
        public init(query: String, family: DeviceFamily? = nil) {
            self.query = query
            self.family = family
        }
    }

    /// Simulated devices of `families` (every simulatable family of
    /// `registry` when empty).
    ///
    /// - Throws: ``DeviceRequestError`` for a family without a simulator.
    public static func simulated(
        _ families: [DeviceFamily], registry: FamilyRegistry = .builtIn
    ) throws(DeviceRequestError) -> DeviceRequest {
        let simulatable = registry.simulatable
        for family in families where !simulatable.contains(family) {
            throw DeviceRequestError(
                "the \(family.rawValue) simulator is not available yet; choose from "
                    + simulatable.map(\.rawValue).joined(separator: ", "))
        }
        return .simulatedFamilies(families.isEmpty ? simulatable : families)
    }

    /// Live devices: each query with the family at its place in
    /// `families`, the one family for all, or none.
    ///
    /// - Throws: ``DeviceRequestError`` when `families` is neither empty,
    ///   one, nor one per device, or a query is empty.
    public static func live(
        _ queries: [String], families: [DeviceFamily] = []
    ) throws(DeviceRequestError)
        -> DeviceRequest
    {
        if !families.isEmpty, families.count != 1, families.count != queries.count {
            throw DeviceRequestError("give one --family for all devices or one per --device (\(queries.count))")
        }
        if queries.contains(where: \.isEmpty) { throw DeviceRequestError("--device needs an address or a name") }
        return .liveDevices(
            queries.enumerated().map { index, query in
                LiveDevice(query: query, family: families.count == queries.count ? families[index] : families.first)
            })
    }

    /// The families asked for, in order (`nil` where a live device's is not given).
    public var families: [DeviceFamily?] {
        switch self {
        case .simulatedFamilies(let families): families
        case .liveDevices(let devices): devices.map(\.family)
        }
    }

    /// The pipeline that records these devices, with no derived streams
    /// (`Pipeline.simulated` or `Pipeline.live`).
    ///
    /// - Parameters:
    ///   - seed: The simulators' seed.
    ///   - scenario: Clean simulated devices, or faults.
    ///   - registry: The families the devices may be of.
    ///   - familyOf: Tells a live device's family when none is given (from
    ///     its advertisement); `nil` when it cannot.
    /// - Throws: ``DeviceRequestError`` for a live device whose family
    ///   cannot be told; `PipelineError` from the pipeline; what `familyOf` throws.
    public func pipeline(
        seed: UInt64 = 1, scenario: SimulationScenario = .clean, registry: FamilyRegistry = .builtIn,
        familyOf: (String) async throws -> DeviceFamily? = { _ in nil }
    ) async throws -> Pipeline {
        switch self {
        case .simulatedFamilies(let families):
            return try Pipeline.simulated(families: families, seed: seed, scenario: scenario, registry: registry)
        case .liveDevices(let devices):
            var entries: [(query: String, family: DeviceFamily)] = []
            for device in devices {
                if let family = device.family {
                    entries.append((device.query, family))
                    continue
                }
                guard let family = try await familyOf(device.query) else {
                    throw DeviceRequestError(
                        "cannot tell the family of \(device.query) from its advertisement; pass --family")
                }
                entries.append((device.query, family))
            }
            return try Pipeline.live(entries, registry: registry)
        }
    }
}
