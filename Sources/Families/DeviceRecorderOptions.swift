public import DeviceRecording
public import Recording

/// What a ``FamilyDescriptor`` needs to register one device with a recorder:
/// its identity, its decoder's options and the pipeline hooks of
/// `DeviceStreamRecorder`. Not `Sendable`: its hooks belong to the task that
/// owns the recorder.
///
/// ```swift
/// let options = DeviceRecorderOptions(identifier: "9F3A0C11", name: "DIoT-9F3A")
/// let device = try FamilyRegistry.builtIn[.diot]!.makeRecorder(recorder, options: options)
/// ```
public struct DeviceRecorderOptions {
    /// The identifier used in topics.
    public var identifier: String
    /// A display name.
    public var name: String
    /// Facts recorded with the device (advertisement, model, ...).
    public var metadata: [String: String]
    /// Options for the family's decoder.
    public var decoderOptions: FamilyOptions
    /// Whether the typed stream with this topic is written, asked once per
    /// topic; `nil` writes every stream. Raw streams are always written.
    public var recordsTypedStream: ((String) -> Bool)?
    /// Called with every decoded value after it was handled, on the recorder's task.
    public var observer: ((ObservedValue) throws(RecordingError) -> Void)?
    /// Sample times a clock survey of the same notifications fitted
    /// (``FamilyDescriptor/makeClockSurvey(options:sampleLimit:)``), given in place of
    /// the online estimates; `nil` times online.
    public var fittedSampleTimes: FittedSampleTimes?

    /// Creates options.
    public init(
        identifier: String, name: String, metadata: [String: String] = [:],
        decoderOptions: FamilyOptions = FamilyOptions(),
        recordsTypedStream: ((String) -> Bool)? = nil,
        observer: ((ObservedValue) throws(RecordingError) -> Void)? = nil
    ) {
        self.identifier = identifier
        self.name = name
        self.metadata = metadata
        self.decoderOptions = decoderOptions
        self.recordsTypedStream = recordsTypedStream
        self.observer = observer
    }
}
