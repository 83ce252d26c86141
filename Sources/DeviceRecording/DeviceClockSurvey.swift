public import Devices

/// The ``ClockSurvey`` of one device of a family: its decoder decodes each
/// notification, and the values its clocks time are grouped and timed as
/// ``DeviceStreamRecorder`` groups and times them, so the survey sees the
/// deliveries the recorder will, in the same order.
///
/// ```swift
/// let survey = DeviceClockSurvey(decoder: JacquardDecoder())
/// for notification in notifications { survey.add(notification) }
/// let recorder = try DeviceStreamRecorder(recorder: recorder, decoder: JacquardDecoder(),
///     identifier: "TAG", name: "tag", fittedSampleTimes: survey.fittedTimes())
/// ```
public final class DeviceClockSurvey<Decoder: PacketDecoder>: ClockSurvey where Decoder.Value: RecordableValue {
    /// The most samples a survey fits, over all the device's clocks (each
    /// costs about 80 bytes while surveying when a delivery holds one
    /// sample, less when it holds several); past it every clock of the
    /// device keeps its online times.
    public static var defaultSampleLimit: Int { 4_000_000 }

    /// Whether the family's values have any sample clock (a survey of a
    /// family whose values all keep their receive time fits nothing).
    public static var isNeeded: Bool {
        (0...SampleClocks.maximumKey).contains { Decoder.Value.sampleClock($0) != nil }
    }

    private var decoder: Decoder
    private var clocks: SampleClocks
    private var pending = PendingMessages()
    private var scratch = TimingScratch()

    /// A survey with a fresh decoder of the family (the recorder gets another).
    ///
    /// - Parameters:
    ///   - decoder: The device's decoder, in the state the recorder's starts in.
    ///   - sampleLimit: The most samples fitted, over all the device's clocks.
    public init(decoder: Decoder, sampleLimit: Int = DeviceClockSurvey.defaultSampleLimit) {
        self.decoder = decoder
        clocks = SampleClocks(surveyingUpTo: sampleLimit)
    }

    public func add(_ notification: RawNotification) {
        let time = notification.receiveTime
        do {
            try decoder.decode(notification) { value in
                switch value.sampleTiming {
                case .receive: break
                case .setsRate(let hertz, let key):
                    clocks.setRate(hertz, clock: key, describe: Decoder.Value.sampleClock)
                case .ticks, .nominalRate:
                    pending.append(streamKey: value.streamKey, timing: value.sampleTiming)
                }
            }
            // A notification that fails to decode times nothing, as in the recorder.
            for index in 0..<pending.deliveryStarts {
                guard let (key, count) = pending.delivery(startingAt: index, into: &scratch) else { continue }
                _ = clocks.times(
                    ticks: scratch.ticks, count: count, clock: key, receivedAt: time, into: &scratch.times,
                    describe: Decoder.Value.sampleClock)
            }
        } catch {}
        pending.removeAll()
    }

    public func fittedTimes() -> FittedSampleTimes { clocks.fittedTimes() }
}
