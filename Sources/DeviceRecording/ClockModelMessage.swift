public import DeviceClocks
public import ROS2
public import Recording

/// The messages of a clock's stream, `/<family>/<device>/clock/<name>`:
/// the clock's model as it evolves, so another tool can redo or undo the
/// sample times (`docs/time.md`).
public enum ClockModelMessage {
    /// The `tlm/msg/ClockModel` schema (recorded with its `stamp`, the
    /// receive time of the delivery the model was fitted after).
    public static let schema = MessageSchema(
        name: "tlm/msg/ClockModel",
        text: """
            # A device clock's model after a delivery (docs/time.md): device time d (ns from the epoch's origin)
            # maps to host time offset_ns + d * (1 + drift_ppm / 1e6), ns since the Unix epoch.
            string clock          # the clock's name (the last topic component)
            string kind           # ticks or nominal_rate
            float64 nominal_rate  # ticks or samples per second
            uint32 epoch          # counts restarts: a device reset, a jump, a new run
            int64 offset_ns
            float64 drift_ppm
            float64 jitter_ns     # root mean square delivery delay above the line
            uint32 fit_size       # points the line rests on
            int64 span_ns         # device time they span
            """)

    /// Appends a model's message body (after the stamp).
    ///
    /// - Parameters:
    ///   - model: The clock's model.
    ///   - clock: The clock.
    ///   - nominalRate: Its nominal rate, ticks or samples per second.
    ///   - cdr: The message being written.
    public static func encode(_ model: ClockModel, clock: SampleClock, nominalRate: Double, into cdr: inout CDRWriter) {
        cdr.write(clock.name)
        switch clock.kind {
        case .ticks: cdr.write("ticks")
        case .nominalRate: cdr.write("nominal_rate")
        }
        cdr.write(nominalRate)
        cdr.write(UInt32(clamping: model.epoch))
        cdr.write(model.offsetNanoseconds)
        cdr.write(model.driftPPM)
        cdr.write(model.jitterNanoseconds)
        cdr.write(UInt32(clamping: model.fitSize))
        cdr.write(model.spanNanoseconds)
    }
}
