import Foundation
import Recording

/// The live status of a recording, read from its index (its own connection,
/// so it never touches the recorder): messages committed, rate, streams,
/// loss and bytes on disk. On a terminal it redraws one line every second;
/// otherwise it prints a plain line every 5 seconds.
struct RecordingStatus {
    let directory: String
    let isTerminal = isatty(STDOUT_FILENO) == 1

    /// Prints status until the task is cancelled.
    func run() async {
        let clock = ContinuousClock()
        let start = clock.now
        let interval: Duration = isTerminal ? .seconds(1) : .seconds(5)
        var last = (time: start, messages: 0)
        while !Task.isCancelled {
            try? await clock.sleep(for: interval)
            if Task.isCancelled { break }
            guard let info = try? RecordingInfo.load(from: directory) else { continue }
            let now = clock.now
            let seconds = Double((now - last.time).components.seconds) + Double((now - last.time).components.attoseconds) / 1e18
            let rate = seconds > 0 ? Double(info.messageCount - last.messages) / seconds : 0
            last = (now, info.messageCount)
            let elapsed = (now - start).components.seconds
            let line = String(format: "%02d:%02d  %@ messages  %@/s  %d streams  loss %@  %@",
                              elapsed / 60, elapsed % 60, InfoReport.grouped(info.messageCount) as NSString,
                              InfoReport.grouped(Int(rate)) as NSString, info.streams.count,
                              InfoReport.grouped(info.lossCount) as NSString, InfoReport.bytes(info.byteSize) as NSString)
            if isTerminal {
                FileHandle.standardOutput.write(Data(("\r\u{1B}[2K" + line).utf8))
            } else {
                print(line)
            }
        }
        if isTerminal { FileHandle.standardOutput.write(Data("\r\u{1B}[2K".utf8)) }
    }
}
