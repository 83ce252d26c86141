import ArgumentParser
import Foundation
import Quantities
import Recording
import Session
import Snapshots

/// `tlm record`'s flight-recorder options: `--snapshot` and the ring's
/// bounds, the window around a trigger and the limits on triggers.
struct SnapshotArguments: ParsableArguments {
    @Flag(
        help: """
            Flight recorder: keep the last --keep (and/or --keep-bytes) of every stream in memory, write nothing \
            until SIGUSR1, then write a snapshot (a recording of its own) into the --output folder.
            """)
    var snapshot = false

    @Option(
        help: "With --snapshot: log time the ring keeps, e.g. 2m. Default: 2m, unless only --keep-bytes is given.",
        transform: DurationArgument.init(parsing:))
    var keep: DurationArgument?

    @Option(
        help: "With --snapshot: compressed bytes the ring keeps, e.g. 200MB, 64MiB.",
        transform: ByteSize.init(parsing:))
    var keepBytes: ByteSize?

    @Option(
        help: "With --snapshot: log time before a trigger a snapshot holds. Default: all the ring holds.",
        transform: DurationArgument.init(parsing:))
    var before: DurationArgument?

    @Option(
        help: "With --snapshot: log time after a trigger a snapshot holds, e.g. 10s. Default: 0.",
        transform: DurationArgument.init(parsing:))
    var after: DurationArgument?

    @Option(
        help: "With --snapshot: triggers this soon after a snapshot's end are suppressed. Default: 10s.",
        transform: DurationArgument.init(parsing:))
    var cooldown: DurationArgument?

    @Option(help: "With --snapshot: snapshots per hour at most (0: no limit). Default: 60.")
    var maxPerHour: Int?

    func validate() throws {
        let given = [
            keep != nil, keepBytes != nil, before != nil, after != nil, cooldown != nil, maxPerHour != nil,
        ]
        if !snapshot, given.contains(true) {
            throw ValidationError(
                "--keep, --keep-bytes, --before, --after, --cooldown and --max-per-hour apply to --snapshot")
        }
        if let maxPerHour, maxPerHour < 0 {
            throw ValidationError("--max-per-hour must be 0 or more, not \(maxPerHour)")
        }
        if let keepBytes, keepBytes.bytes < 1024 {
            throw ValidationError("--keep-bytes must be at least 1KiB, not \(keepBytes)")
        }
        if let keep, keep.duration <= .zero { throw ValidationError("--keep must be positive") }
    }

    /// The options the flags give.
    var options: SnapshotOptions {
        var options = SnapshotOptions()
        options.keep = keep?.duration ?? (keepBytes == nil ? .seconds(120) : nil)
        options.keepBytes = keepBytes.map { Int(clamping: $0.bytes) }
        options.before = before?.duration
        options.after = after?.duration ?? .zero
        options.cooldown = cooldown?.duration ?? .seconds(10)
        options.maximumPerHour = maxPerHour.map { $0 == 0 ? nil : $0 } ?? 60
        return options
    }

    /// Prints each event on standard error as it comes, until the events end.
    static func report(_ controller: SnapshotController, quiet: Bool) -> Task<Void, Never> {
        Task {
            for await event in controller.events {
                let line: String?
                switch event {
                case .written(let written, let window):
                    line =
                        "snapshot: \(written.directory) (\(written.messageCount) messages, "
                        + "\(String(format: "%.3f", Double(window.end - window.start) / 1e9)) s, "
                        + "\(window.triggers.map { "\($0.source.rawValue): \($0.reason)" }.joined(separator: "; ")))"
                case .failed(let directory, _, let why):
                    line = "snapshot failed: \(directory): \(why) (the ring keeps running)"
                case .suppressed(let trigger, let why):
                    line = "trigger suppressed (\(trigger.source.rawValue): \(trigger.reason)): \(why)"
                case .opened(let trigger, let window):
                    line =
                        "trigger (\(trigger.source.rawValue): \(trigger.reason)): snapshot window open until "
                        + "\(String(format: "%.3f", Double(window.end - min(window.end, trigger.time)) / 1e9)) s after it"
                case .extended, .marked:
                    line = nil
                }
                if let line, !quiet { FileHandle.standardError.write(Data((line + "\n").utf8)) }
            }
        }
    }
}
