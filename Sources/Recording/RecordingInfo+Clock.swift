extension RecordingInfo {
    /// A device clock's latest model: the last message of its clock stream,
    /// `/<family>/<device>/clock/<name>` (schema `tlm/msg/ClockModel`, see
    /// `docs/time.md`), as `tlm info` shows it.
    public struct Clock: Sendable, Hashable, Codable {
        /// The clock stream's topic.
        public var topic: String
        /// The clock's name (the topic's last level: `imu`, `channel_1`).
        public var clock: String
        /// `ticks` (a device clock) or `nominal_rate` (dejittered at a nominal rate).
        public var kind: String
        /// Ticks or samples per second.
        public var nominalRate: Double
        /// Counts restarts of the fit (a device reset, a jump, a new run): 0 for none.
        public var epoch: Int
        /// The host time of the epoch's device time 0, nanoseconds since the Unix epoch.
        public var offsetNanoseconds: Int64
        /// The fitted drift: a nominal device second lasts `1 + driftPPM/1e6` host seconds.
        public var driftPPM: Double
        /// The root mean square delivery delay above the fitted line, nanoseconds.
        public var jitterNanoseconds: Double
        /// Points the line rests on.
        public var fitSize: Int
        /// Device time those points span, nanoseconds.
        public var spanNanoseconds: Int64
        /// The receive time of the model's message, nanoseconds since the Unix epoch.
        public var time: UInt64
        /// Models recorded in the stream (the clock stream's messages).
        public var updates: Int

        /// Keys without acronyms, so that snake_case JSON (`drift_ppm`) reads back.
        private enum CodingKeys: String, CodingKey {
            case topic, clock, kind, nominalRate, epoch, offsetNanoseconds
            case driftPPM = "driftPpm"
            case jitterNanoseconds, fitSize, spanNanoseconds, time, updates
        }

        /// The schema name of clock streams.
        public static let schemaName = "tlm/msg/ClockModel"

        /// The largest drift `tlm`'s recorder fits, in ppm either way (the
        /// default bound of `DeviceClockEstimator` and `RateDejitterer`).
        public static let driftBoundPPM = 1000.0

        /// The device time a fit spans before ``isAtDriftBound`` trusts its
        /// drift (the estimators' settled span): a line through a few close
        /// points can reach the bound by their jitter alone.
        public static let settledSpanNanoseconds: Int64 = 10_000_000_000

        /// Whether a settled fit's drift sits at ``driftBoundPPM``: the line
        /// was held there, so the clock's nominal rate (a tick rate `tlm`
        /// takes from the family, or a rate the device reported) is likely wrong.
        public var isAtDriftBound: Bool {
            abs(driftPPM) >= Self.driftBoundPPM - 0.5 && spanNanoseconds >= Self.settledSpanNanoseconds
        }
    }

    /// This summary with ``clocks`` read: each clock stream's last model
    /// (`RecordingReader.clockModels()`), two chunks read per clock stream,
    /// found through the index (no segment scanned).
    ///
    /// - Throws: ``RecordingError`` when a clock stream's chunk cannot be read or its message is not a model.
    public func loadingClocks() throws(RecordingError) -> RecordingInfo {
        var info = self
        guard streams.contains(where: { $0.schema == Clock.schemaName && $0.messageCount > 0 }) else {
            info.clocks = []
            return info
        }
        info.clocks = try RecordingReader(directory: directory).clockModels()
        return info
    }
}
