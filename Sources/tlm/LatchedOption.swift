import ArgumentParser

/// `--no-latched`, shared by the verbs that start a slice, a replay or a
/// live subscription part-way through a recording.
struct LatchedOption: ParsableArguments {
    @Flag(
        name: .customLong("no-latched"),
        help: ArgumentHelp(
            """
            Do not begin with each latched topic's last message before --from (device information, \
            settings, states sent once or on change; docs/recording.md): by default a slice holds it, with \
            its original times.
            """))
    var off = false

    /// Whether latched topics' last messages before the start are included.
    var latched: Bool { !off }
}
