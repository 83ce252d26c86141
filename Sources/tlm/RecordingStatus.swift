import DeviceRecording
import Foundation
import Recording

/// The live status of a recording, read from its index (its own connection,
/// so it never touches the recorder): messages committed, rate, streams,
/// loss, bytes on disk, and the busiest streams with their rates.
///
/// On standard error (standard output carries the summary only). On a
/// terminal it redraws a small block every second: a totals line and
/// the ``topStreams`` fastest typed streams. Otherwise it prints one plain
/// line every 5 seconds, the busiest three streams' rates at its end. Rates
/// count committed messages, so they trail the devices by up to one chunk
/// age.
struct RecordingStatus {
    let directory: String
    let isTerminal = isatty(STDERR_FILENO) == 1
    /// How many streams the terminal block lists.
    static let topStreams = 5

    /// Prints status until the task is cancelled.
    func run() async {
        let clock = ContinuousClock()
        let start = clock.now
        let interval: Duration = isTerminal ? .seconds(1) : .seconds(5)
        var last = (time: start, counts: RecordingRates.Counts())
        var linesDrawn = 0
        while !Task.isCancelled {
            try? await clock.sleep(for: interval)
            if Task.isCancelled { break }
            guard let info = try? RecordingInfo.load(from: directory) else { continue }
            let now = clock.now
            let rates = RecordingRates(since: last.counts, now: info, seconds: Self.seconds(now - last.time))
            let total = rates.total
            let streams = rates.streams
            last = (now, RecordingRates.Counts(info))
            let elapsed = (now - start).components.seconds
            let totals = String(
                format: "%02d:%02d  %@ messages  %@/s  %d streams  loss %@ in %d records  %@",
                elapsed / 60, elapsed % 60, InfoReport.grouped(info.messageCount) as NSString,
                InfoReport.grouped(Int(total)) as NSString, info.streams.count,
                InfoReport.grouped(info.lossCount) as NSString, info.losses.count,
                InfoReport.bytes(info.byteSize) as NSString)
            if isTerminal {
                let width = streams.prefix(Self.topStreams).map(\.topic.count).max() ?? 0
                let lines =
                    [totals]
                    + streams.prefix(Self.topStreams).map {
                        "  " + Columns.pad($0.topic, width) + "  "
                            + InfoReport.grouped(Int($0.rate.rounded())) + "/s"
                    }
                FileHandle.standardError.write(Data((Self.clear(linesDrawn) + lines.joined(separator: "\n")).utf8))
                linesDrawn = lines.count
            } else {
                let busiest = streams.prefix(3).map { "\($0.topic) \(InfoReport.grouped(Int($0.rate.rounded())))/s" }
                FileHandle.standardError.write(
                    Data(
                        (totals + (busiest.isEmpty ? "" : "  busiest: " + busiest.joined(separator: ", ")) + "\n").utf8)
                )
            }
        }
        if isTerminal { FileHandle.standardError.write(Data(Self.clear(linesDrawn).utf8)) }
    }

    /// Escape codes that erase the last `lines` lines drawn and leave the
    /// cursor at the start of the first.
    private static func clear(_ lines: Int) -> String {
        guard lines > 0 else { return "" }
        return "\r\u{1B}[2K" + String(repeating: "\u{1B}[1A\u{1B}[2K", count: lines - 1)
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
