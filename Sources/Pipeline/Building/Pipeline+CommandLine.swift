public import Devices
public import Families
public import ROS2
import Recording

extension Pipeline {
    /// A pipeline of simulated devices, one per family, each named after its
    /// family, with no derived streams (`tlm record --simulate`).
    ///
    /// ```swift
    /// let pipeline = try Pipeline.simulated(families: [.diot, .jacquard], seed: 7, scenario: .clean)
    /// ```
    ///
    /// - Parameters:
    ///   - families: The families to simulate, in order.
    ///   - seed: The simulators' seed: the same seed gives the same values.
    ///   - scenario: Clean devices, or faults.
    ///   - registry: The families the devices may be of.
    /// - Throws: ``PipelineError`` for no family, one given twice, or one `registry` does not know.
    public static func simulated(
        families: [DeviceFamily], seed: UInt64, scenario: SimulationScenario, registry: FamilyRegistry = .builtIn
    ) throws(PipelineError) -> Pipeline {
        try Pipeline(
            name: "simulate",
            devices: families.map { family in
                PipelineDevice(
                    name: family.rawValue, family: family, source: .simulated(seed: seed, scenario: scenario, rate: nil)
                )
            },
            families: registry)
    }

    /// A pipeline of live devices with no derived streams (`tlm record --device`).
    ///
    /// Each device is named after its family and its place in the list
    /// (`diot1`, `jacquard2`); a query that ``isDeviceAddress(_:)`` is taken
    /// for the device's address, any other for its advertised name.
    ///
    /// - Parameters:
    ///   - devices: Each device's address or name, and its family.
    ///   - registry: The families the devices may be of.
    /// - Throws: ``PipelineError`` for no device or a family `registry` does not know.
    public static func live(
        _ devices: [(query: String, family: DeviceFamily)], registry: FamilyRegistry = .builtIn
    ) throws(PipelineError) -> Pipeline {
        try Pipeline(
            name: "live",
            devices: devices.enumerated().map { index, device in
                let isAddress = isDeviceAddress(device.query)
                return PipelineDevice(
                    name: device.family.rawValue + String(index + 1), family: device.family,
                    source: .live(address: isAddress ? device.query : nil, name: isAddress ? nil : device.query),
                    location: SourceLocation(file: "<command line>"))
            },
            families: registry)
    }

    /// Whether a device query reads as a Bluetooth address rather than a
    /// name: six groups separated by `:` (`C0:FF:EE:00:00:01`) or by `_`
    /// (BlueZ's object-path form, `C0_FF_EE_00_00_01`).
    public static func isDeviceAddress(_ query: String) -> Bool {
        query.split(separator: ":").count == 6 || query.split(separator: "_").count == 6
    }

    /// This pipeline with the typed streams the globs select: `topics`, when
    /// not empty, replaces ``record``; `excluding` adds to ``exclude``. A
    /// glob also selects every topic below a level it matches (`/diot/*` is
    /// every DIoT stream), as `tlm query --topic` reads it.
    ///
    /// - Parameters:
    ///   - topics: Globs of the typed streams to write; empty keeps ``record``.
    ///   - excluding: Globs of the typed streams not to write.
    public func selecting(topics: [TopicPattern], excluding: [TopicPattern]) -> Pipeline {
        func withLevelsBelow(_ patterns: [TopicPattern]) -> [TopicPattern] {
            patterns.flatMap { [$0, TopicPattern($0.text + "/**")] }
        }
        var pipeline = self
        if !topics.isEmpty { pipeline.record = withLevelsBelow(topics) }
        pipeline.exclude += withLevelsBelow(excluding)
        return pipeline
    }
}
