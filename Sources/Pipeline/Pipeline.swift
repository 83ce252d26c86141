public import Families
import Foundation
public import ROS2
public import Recording

/// A declarative recording pipeline: which devices to record, which of
/// their streams to write, which streams to derive from them with `Streams`
/// operators, and the recording settings. Loaded from a YAML file
/// (`docs/pipelines.md` is the reference) and validated with precise errors.
///
/// ```swift
/// let pipeline = try Pipeline(contentsOfFile: "Pipelines/diot-imu.yaml")
/// print(pipeline.name, pipeline.devices.map(\.family), pipeline.derived.map(\.topic))
/// // diot-imu [diot] ["/derived/acc_magnitude", ...]
/// ```
public struct Pipeline: Sendable {
    /// The pipeline's name (recorded in the session's metadata).
    public var name: String
    /// The file it was loaded from, as named (used in errors).
    public var file: String
    /// The YAML text it was loaded from.
    public var text: String
    /// The devices to record.
    public var devices: [PipelineDevice]
    /// Which typed streams are written, by topic pattern; `nil` writes every
    /// typed stream. Raw streams are always written, so `replay` can
    /// reproduce everything.
    public var record: [TopicPattern]?
    /// Typed streams not written even when ``record`` takes them (`tlm
    /// record --exclude`): a topic is left out when one of these patterns
    /// matches it. Raw streams are always written.
    public var exclude: [TopicPattern] = []
    /// The derived streams, in the file's order.
    public var derived: [DerivedStream]
    /// Conditions that ask a flight recorder for a snapshot (`triggers:`), in the file's order.
    public var triggers: [PipelineTrigger] = []
    /// Segment, chunk and compression settings.
    public var recording: RecordingSettings
    /// The families its devices were checked against, which also decode,
    /// simulate and capture them.
    public let families: FamilyRegistry

    /// The largest pipeline file read: 1 MiB.
    public static let maximumFileSize = 1 << 20

    /// Loads and validates a pipeline file: a regular file (not a FIFO, a
    /// device or a directory) of at most ``maximumFileSize`` bytes.
    ///
    /// ```swift
    /// let pipeline = try Pipeline(contentsOfFile: "Pipelines/default.yaml")
    /// ```
    ///
    /// - Parameter path: The file's path; errors name the file this way.
    /// - Throws: ``PipelineError`` naming the file, line and column and what was expected.
    public init(contentsOfFile path: String) throws(PipelineError) {
        let data: Data
        do {
            data = Data(try RegularFile.read(path, limit: Self.maximumFileSize))
        } catch {
            throw PipelineError(.io, at: SourceLocation(file: path), "cannot read the pipeline file: \(error.message)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw PipelineError(.io, at: SourceLocation(file: path), "the pipeline file is not UTF-8 text")
        }
        try self.init(yaml: text, file: path)
    }

    /// Parses and validates a pipeline from YAML text.
    ///
    /// ```swift
    /// let pipeline = try Pipeline(yaml: """
    ///     name: speed
    ///     devices:
    ///       - family: comodule
    ///         source: {simulated: {seed: 1}}
    ///     derived:
    ///       - name: fast
    ///         from: /comodule/*/speed
    ///         operators:
    ///           - filter: {min: 25}
    ///     """, file: "speed.yaml")
    /// ```
    ///
    /// - Parameters:
    ///   - yaml: The pipeline text.
    ///   - file: The name errors use for the text.
    ///   - families: The families a device may be of.
    /// - Throws: ``PipelineError`` naming the file, line and column and what was expected.
    public init(yaml: String, file: String = "<pipeline>", families: FamilyRegistry = .builtIn) throws(PipelineError) {
        self = try PipelineLoader(file: file, text: yaml, families: families).load()
    }

    /// A pipeline built in code rather than loaded from a file: its devices,
    /// which typed streams to write, its derived streams and settings.
    ///
    /// ```swift
    /// let pipeline = try Pipeline(name: "live", devices: [
    ///     PipelineDevice(name: "diot1", family: .diot, source: .live(address: "C0:FF:EE:00:00:01", name: nil)),
    /// ])
    /// ```
    ///
    /// - Parameters:
    ///   - name: The pipeline's name (recorded with the session).
    ///   - devices: The devices to record: at least one, names unique.
    ///   - record: Which typed streams are written; `nil` writes every one.
    ///   - derived: Derived streams.
    ///   - recording: Segment, chunk and compression settings.
    ///   - families: The families the devices may be of.
    /// - Throws: ``PipelineError`` for no device, a duplicate name or a family `families` does not know.
    public init(
        name: String, devices: [PipelineDevice], record: [TopicPattern]? = nil, derived: [DerivedStream] = [],
        recording: RecordingSettings = RecordingSettings(), families: FamilyRegistry = .builtIn
    )
        throws(PipelineError)
    {
        let location = SourceLocation(file: "<code>")
        guard !devices.isEmpty else { throw PipelineError(.missingKey, at: location, "a pipeline needs a device") }
        var names: Set<String> = []
        for device in devices {
            guard names.insert(device.name).inserted else {
                throw PipelineError(.duplicate, at: device.location, "duplicate device name '\(device.name)'")
            }
            guard families[device.family] != nil else {
                throw PipelineError(
                    .invalidValue, at: device.location,
                    "unknown family '\(device.family)' (expected one of \(families.namesList))")
            }
        }
        self.init(
            name: name, file: "", text: "", devices: devices, record: record, derived: derived,
            recording: recording, families: families)
    }

    init(
        name: String, file: String, text: String, devices: [PipelineDevice], record: [TopicPattern]?,
        derived: [DerivedStream], recording: RecordingSettings, families: FamilyRegistry
    ) {
        self.families = families
        self.name = name
        self.file = file
        self.text = text
        self.devices = devices
        self.record = record
        self.derived = derived
        self.recording = recording
    }

    /// Whether the typed stream with this topic is written.
    ///
    /// ```swift
    /// pipeline.records(topic: "/diot/d_9F3A0C11/acc_x")  // true when a `record` pattern matches
    /// ```
    ///
    /// - Parameter topic: A device stream's topic.
    /// - Returns: `true` when no ``exclude`` pattern matches, and ``record``
    ///   is absent or one of its patterns matches.
    public func records(topic: String) -> Bool {
        guard !exclude.contains(where: { $0.matches(topic) }) else { return false }
        guard let record else { return true }
        return record.contains { $0.matches(topic) }
    }

    /// The recorder settings of the `recording` section (defaults for what it leaves out).
    ///
    /// ```swift
    /// var configuration = pipeline.recorderConfiguration()
    /// configuration.zstdLevel = 9  // a command-line override
    /// ```
    ///
    /// - Returns: The configuration for `Recorder`.
    public func recorderConfiguration() -> RecorderConfiguration {
        recording.configuration
    }
}
