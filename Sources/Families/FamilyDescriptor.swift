public import DeviceRecording
public import Devices
public import Recording

/// Everything the recorder knows about one device family, in one value: how
/// its notifications are decoded and recorded, which streams and schemas it
/// produces, how it is recognised in an advertisement, what live capture
/// subscribes to and writes, and how it is simulated.
///
/// Every part of the system that used to ask "which family is this?" asks
/// the family's descriptor instead, so adding a family is its folder and one
/// line in ``FamilyRegistry/builtIn`` (see `docs/adding-a-family.md`).
///
/// ```swift
/// let diot = FamilyRegistry.builtIn[.diot]!
/// print(diot.streamNames.contains("acc_x"))        // true
/// var decoder = try diot.makeDecoder()
/// try decoder.decode(notification) { value in print(value) }
/// ```
public struct FamilyDescriptor: Sendable {
    /// The family's name (the first topic level).
    public let family: DeviceFamily
    /// One line on what the family's devices are, for help texts.
    public let summary: String
    /// The typed streams the family's decoder can produce: the last topic
    /// levels, `/<family>/<device>/<stream>` (raw streams, `raw/c_<uuid hex>`,
    /// exist for every family and are not listed).
    public let streamNames: [String]
    /// The schemas of its typed streams, as recorded: the sample time first
    /// (`MessageSchema.stamped`).
    public let schemas: [MessageSchema]
    /// How an advertisement shows a device of this family.
    public let advertisement: AdvertisementMatch
    /// What live capture does with a connected device of this family.
    public let capture: CaptureProfile
    /// Whether its simulator takes a notification rate (``SimulationRequest/rate``).
    public let simulatorTakesRate: Bool
    private let decoderFactory: @Sendable (FamilyOptions) throws -> any FamilyDecoder
    private let recorderFactory: @Sendable (Recorder, DeviceRecorderOptions) throws -> any DeviceRecorder
    private let simulatorFactory: (@Sendable (SimulationRequest) -> any SimulatedDevice)?
    /// Whether the family's values have sample clocks (ticks or a nominal
    /// rate): only such a family's devices are surveyed (``makeClockSurvey(options:sampleLimit:)``).
    public let hasSampleClocks: Bool
    private let surveyFactory: @Sendable (FamilyOptions, Int) throws -> any ClockSurvey

    /// Describes a family.
    ///
    /// - Parameters:
    ///   - family: Its name.
    ///   - summary: One line on its devices.
    ///   - decoder: Makes a fresh decoder; `options` carries settings such as
    ///     Comodule's property table. It may throw for bad options.
    ///   - streamNames: The typed streams the decoder can produce.
    ///   - schemas: Their schemas.
    ///   - advertisement: How its advertisements are recognised.
    ///   - capture: Its live-capture profile.
    ///   - simulator: Makes a seeded simulated device, if the family has a simulator.
    ///   - simulatorTakesRate: Whether the simulator honours ``SimulationRequest/rate``.
    public init<Decoder: PacketDecoder>(
        family: DeviceFamily, summary: String, decoder: @escaping @Sendable (FamilyOptions) throws -> Decoder,
        streamNames: [String], schemas: [MessageSchema], advertisement: AdvertisementMatch, capture: CaptureProfile,
        simulator: (@Sendable (SimulationRequest) -> any SimulatedDevice)? = nil, simulatorTakesRate: Bool = false
    ) where Decoder.Value: RecordableValue {
        self.simulatorTakesRate = simulatorTakesRate
        self.family = family
        self.summary = summary
        self.streamNames = streamNames
        self.schemas = schemas.map(\.stamped)
        self.advertisement = advertisement
        self.capture = capture
        self.simulatorFactory = simulator
        self.decoderFactory = { options in ErasedDecoder(base: try decoder(options)) }
        self.hasSampleClocks = DeviceClockSurvey<Decoder>.isNeeded
        self.surveyFactory = { options, limit in DeviceClockSurvey(decoder: try decoder(options), sampleLimit: limit) }
        self.recorderFactory = { recorder, options in
            do {
                return try DeviceStreamRecorder(
                    recorder: recorder, decoder: try decoder(options.decoderOptions), identifier: options.identifier,
                    name: options.name, metadata: options.metadata, recordsTypedStream: options.recordsTypedStream,
                    observer: options.observer, fittedSampleTimes: options.fittedSampleTimes)
            } catch let error as RecordingError {
                throw error
            } catch {
                throw RecordingError(.invalidConfiguration, "\(family) decoder: \(error)", cause: error)
            }
        }
    }

    /// A fresh decoder of the family, its values type-erased (for tools that
    /// print or inspect values of any family).
    ///
    /// - Throws: The family's error for bad `options` (an unreadable property table, ...).
    public func makeDecoder(options: FamilyOptions = FamilyOptions()) throws -> any FamilyDecoder {
        try decoderFactory(options)
    }

    /// Registers a device of this family with `recorder` and returns the
    /// recorder of its notifications: raw streams, typed streams, loss records
    /// for malformed packets.
    ///
    /// - Throws: `RecordingError` when the device cannot be registered or
    ///   the decoder options are bad.
    public func makeRecorder(
        _ recorder: Recorder, options: DeviceRecorderOptions
    ) throws(RecordingError)
        -> any DeviceRecorder
    {
        do {
            return try recorderFactory(recorder, options)
        } catch let error as RecordingError {
            throw error
        } catch {
            throw RecordingError(.invalidConfiguration, "\(family): \(error)", cause: error)
        }
    }

    /// A survey of one device's notifications that fits its sample clocks
    /// over their whole runs, for a recorder made with the times it fits
    /// (``DeviceRecorderOptions/fittedSampleTimes``); `nil` when the
    /// family's values have no sample clock (all keep their receive time).
    ///
    /// - Parameters:
    ///   - options: The decoder's options, as the recorder's.
    ///   - sampleLimit: The most samples fitted over all the device's clocks;
    ///     past it they keep their online times.
    /// - Throws: The family's error for bad `options`.
    public func makeClockSurvey(
        options: FamilyOptions = FamilyOptions(), sampleLimit: Int = 4_000_000
    ) throws -> (any ClockSurvey)? {
        hasSampleClocks ? try surveyFactory(options, sampleLimit) : nil
    }

    /// Whether the family has a simulator.
    public var isSimulatable: Bool { simulatorFactory != nil }

    /// A seeded simulated device of the family, or `nil` when it has no simulator.
    public func makeSimulator(_ request: SimulationRequest) -> (any SimulatedDevice)? {
        simulatorFactory?(request)
    }
}
