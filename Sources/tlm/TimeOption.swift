import ArgumentParser
import Recording

/// `--time sample|receive`, shared by the verbs that show, order or select
/// messages by time (query, export, cat, report, plot, serve, replay).
struct TimeOption: ParsableArguments {
    @Option(
        name: .customLong("time"),
        help: ArgumentHelp(
            """
            Which time orders, selects (--from/--to) and shows messages: sample (when the device measured them: \
            publish_time, the stamp field; the default) or receive (when the host received them: log_time). \
            Streams without a sample time (raw notifications, loss records, recordings made before sample \
            times) use their receive time in both.
            """, valueName: "sample|receive"))
    var given: [MessageTime] = []

    func validate() throws {
        guard given.count <= 1 else {
            throw ValidationError(
                "--time is given \(given.count) times (\(given.map(\.rawValue).joined(separator: ", "))); give it once")
        }
    }

    /// The time asked for: sample unless `--time receive`.
    var time: MessageTime { given.first ?? .sample }
}
