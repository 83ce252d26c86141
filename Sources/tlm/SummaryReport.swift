import Session

/// The summary `tlm record` and `tlm replay` print with `--format json`
/// (keys in snake_case, as every JSON report of `tlm`).
struct SummaryReport: Encodable {
    /// The new recording directory.
    var directory: String
    var messageCount: Int
    var streamCount: Int
    var segmentCount: Int
    var byteSize: UInt64
    var deviceCount: Int
    var lossCount: Int
    var lossRecordCount: Int
    var gapSeconds: Double
    var stoppedEarly: Bool
    /// Replays only: notifications fed through the decoders.
    var replayedNotifications: Int?
    /// With a pipeline: values its derived streams produced.
    var derivedCount: Int?

    init(_ summary: RecordingSummary, directory: String, replay: Bool = false, derived: Bool = false) {
        self.directory = directory
        messageCount = summary.messageCount
        streamCount = summary.streamCount
        segmentCount = summary.segmentCount
        byteSize = summary.byteSize
        deviceCount = summary.deviceCount
        lossCount = summary.lossCount
        lossRecordCount = summary.lossRecordCount
        gapSeconds = summary.gapSeconds
        stoppedEarly = summary.stoppedEarly
        replayedNotifications = replay ? summary.replayedNotifications : nil
        derivedCount = derived ? summary.derivedCount : nil
    }
}
