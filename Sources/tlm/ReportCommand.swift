import ArgumentParser
import Foundation
import Report

/// `tlm report REC --output report.html`: one self-contained HTML report.
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Write a recording's report as one self-contained HTML file, with zoomable plots.",
        discussion: """
            The file needs no network (inline canvas plots and script): it opens from disk and can be mailed. \
            It shows the session and devices; a plot per numeric stream on a shared time axis of clock times \
            (UTC, or local with --local-time; relative time on a button), grouped per device, with y ticks in \
            the stream's unit that follow the values in view; the vector components of typed streams (an \
            IMU's six axes, or the fields --field names) overlaid in one lane with a legend; events as marks; \
            loss records and gaps shaded on the lanes of the streams that lost them; a cursor that shows the \
            instant and every lane's values; rates and counts per stream. Plots are min/max/mean per time column from the index's per-chunk and per-cell \
            statistics, in up to three levels of detail (about 2,048, 8,192 and 32,768 columns, aligned to the \
            index's time grid so long recordings are not decoded), so zooming reads nothing again and the \
            file's size is bounded by the columns (at most about 340 KiB per numeric stream), not the samples. \
            The time axis, the range and the event marks are in sample time by default (--time receive: \
            log_time); the index's per-cell statistics are per receive time, so with sample time a stream \
            that has sample times takes only whole chunks from the index (their first and last sample time) \
            and decodes the others: --time receive is the fast path for long recordings.

            Examples:
              tlm report ride --output ride.html
              tlm report ride --topic '/diot/*' --from +10s --to +40s --output diot.html
              tlm report ride --topic '/jacquard/*/imu' --field accel_x,accel_y,accel_z --output imu.html
            """
    )

    @OptionGroup var options: ReportOptions

    func run() throws {
        let data = try options.build(levels: ReportBuilder.levelColumns.count)
        try options.write(Array(HTMLReport(data, timeZone: options.display.times.zone).text.utf8))
        try options.report(
            "Wrote \(options.output): \(data.lanes.count) plot(s), \(data.events.count) event stream(s), "
                + "\(data.losses.count) loss record(s).", data, command: "report", losses: true)
    }
}
