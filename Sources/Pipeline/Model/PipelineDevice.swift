public import Devices

/// A device a pipeline records: its family and where its notifications come from.
///
/// ```yaml
/// devices:
///   - name: imu
///     family: diot
///     source:
///       simulated: {seed: 1, scenario: clean, rate: 200}
/// ```
public struct PipelineDevice: Sendable, Hashable {
    /// Where a device's notifications come from.
    public enum Source: Sendable, Hashable {
        /// A seeded simulator: the same seed gives the same values. `rate`
        /// (DIoT only) sets the IMU channels' notification rate in Hz.
        case simulated(seed: UInt64, scenario: SimulationScenario, rate: Double?)
        /// A live BLE device, by address or advertised name.
        case live(address: String?, name: String?)
        /// A device in a capture file (btsnoop, pcapng, pcap) recorded
        /// earlier: the one with `address`, or the first of the device's family.
        /// A relative path is relative to the pipeline file's folder.
        case capture(path: String, address: String?)
    }

    /// The device's name in the pipeline (defaults to its family's name).
    public var name: String
    /// The device family, which picks the decoder.
    public var family: DeviceFamily
    /// Where its notifications come from.
    public var source: Source
    /// Where the device is declared, for errors.
    public var location: SourceLocation

    /// Creates a device.
    ///
    /// - Parameters:
    ///   - name: The device's name in the pipeline.
    ///   - family: The device family.
    ///   - source: Where its notifications come from.
    ///   - location: Where it is declared.
    public init(
        name: String, family: DeviceFamily, source: Source, location: SourceLocation = SourceLocation(file: "<code>")
    ) {
        self.name = name
        self.family = family
        self.source = source
        self.location = location
    }
}
