import ArgumentParser
import Recording

/// `--time sample|receive`, shared by the verbs that show, order or select
/// messages by time (query, export, cat, report, plot, serve, replay).
struct TimeOption: ParsableArguments {
    /// The time asked for: sample unless `--time receive`; given twice, a
    /// usage error, as every single-value option is (`RepeatedOptionCheck`).
    @Option(
        name: .customLong("time"),
        help: ArgumentHelp(
            """
            Which time orders, selects (--from/--to) and shows messages: sample (when the device measured them: \
            publish_time, the stamp field; the default) or receive (when the host received them: log_time). \
            Streams without a sample time (raw notifications, loss records, recordings made before sample \
            times) use their receive time in both.
            """, valueName: "sample|receive"))
    var time: MessageTime = .sample
}
