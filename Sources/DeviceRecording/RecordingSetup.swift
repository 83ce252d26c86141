public import Recording

/// What ``RecorderService/run(tick:setUp:)`` records with, made on the
/// recording task: the recorder, one device recorder per device index of the
/// input, and a hook for when the input has ended.
///
/// Not `Sendable`: everything in it belongs to the recording task.
///
/// ```swift
/// try await service.run(setUp: { () throws(RecordingError) in
///     let recorder = try Recorder(directory: "ride")
///     let engine = try PipelineEngine(pipeline: pipeline, recorder: recorder)
///     return RecordingSetup(recorder: recorder, devices: devices, onInputEnd: engine.finish)
/// })
/// ```
public struct RecordingSetup {
    /// The recorder the input is written to.
    public var recorder: Recorder
    /// The device recorders, by the device index of ``RecorderService/send(_:device:)``.
    public var devices: [any DeviceRecorder]
    /// Called on the recording task once the input has ended, before the recorder closes.
    public var onInputEnd: (() throws(RecordingError) -> Void)?
    /// Called on the recording task at each timer tick (host time), after
    /// quiet chunks are closed: where a flight recorder takes its triggers.
    public var onTick: ((UInt64) throws(RecordingError) -> Void)?

    /// Creates a setup.
    public init(
        recorder: Recorder, devices: [any DeviceRecorder],
        onInputEnd: (() throws(RecordingError) -> Void)? = nil,
        onTick: ((UInt64) throws(RecordingError) -> Void)? = nil
    ) {
        self.recorder = recorder
        self.devices = devices
        self.onInputEnd = onInputEnd
        self.onTick = onTick
    }
}
