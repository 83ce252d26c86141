import ArgumentParser
import Foundation
import Report

/// `tlm plot REC --topic GLOB --output plot.svg|plot.png`: the report's plots as one image.
struct PlotCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plot",
        abstract:
            "Draw a recording's streams as one SVG or PNG image: min/max/mean per pixel column, shared time axis.",
        discussion: """
            Each numeric stream is a lane (the band between each pixel column's minimum and maximum, and the \
            mean; a dot per value where they are few), each event stream a row of ticks, grouped per device; \
            y ticks at readable steps carry the unit, the time axis shows clock times (UTC, or local with \
            --local-time); loss records and gaps are shaded on the lanes of the streams that lost them. The \
            fields of a typed stream are plotted overlaid in one lane with a legend: by default the vector \
            components of vector-like schemas (an IMU's accel_x ... gyro_z), or those --field names (also \
            --topic TOPIC.FIELD). --overlay draws every numeric series in one lane with a legend; --xy x,y \
            draws two fields of the selected typed streams against each other (a mark per cell of a \
            400 x 400 grid, so the image's size follows the grid). \
            Columns come from the index's per-chunk statistics, decoding only the chunks a column boundary \
            cuts through: the image's size follows its width, not the number of samples. The output's \
            extension chooses the format: .svg (text) or .png (drawn here, encoded by libpng). The time axis \
            is sample time by default (--time receive: log_time; see `tlm report --help`).

            Examples:
              tlm plot ride --topic '/diot/*/acc_*' --output acc.svg
              tlm plot ride --topic '/comodule/**' --from +1m --to +2m --width 2000 --output scooter.png
              tlm plot ride --topic '/jacquard/*/imu' --field accel_x,accel_y --output accel.png
              tlm plot ride --topic '/jacquard/*/imu.gyro_z' --output gyro.svg
              tlm plot ride --topic '/diot/*/acc_?' --overlay --output acc.png
              tlm plot ride --topic '/jacquard/*/imu' --xy accel_x,accel_y --output accel-xy.svg
            """
    )

    @OptionGroup var options: ReportOptions

    @Option(help: "The image's width in pixels, 400...8192.")
    var width: Int = 1400

    @Flag(help: "Draw every numeric series in one lane, with a legend, instead of a lane per stream.")
    var overlay = false

    @Option(
        help: ArgumentHelp(
            "Draw two fields of the selected typed streams against each other (x,y), a mark per grid cell.",
            valueName: "x,y"))
    var xy: String?

    /// The fields of `--xy`.
    var xyFields: (x: String, y: String)? {
        guard let xy else { return nil }
        let parts = xy.split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
        return (parts[0], parts[1])
    }

    func validate() throws {
        if xy != nil, xyFields == nil { throw ValidationError("--xy needs two fields, such as accel_x,accel_y") }
        if xy != nil, overlay { throw ValidationError("--xy and --overlay cannot be combined") }
        guard (400...8192).contains(width) else { throw ValidationError("--width must be 400...8192 pixels") }
        let suffix = (options.output as NSString).pathExtension.lowercased()
        guard suffix == "svg" || suffix == "png" else {
            throw ValidationError("--output must end in .svg or .png")
        }
    }

    func run() throws {
        if let (x, y) = xyFields { return try runXY(x: x, y: y) }
        let data = try options.build(columns: SVGPlot.plotWidth(imageWidth: width))
        guard !data.series.isEmpty || !data.events.isEmpty else {
            throw CLIError("nothing to plot: no numeric or event stream with data among the selected topics")
        }
        if (options.output as NSString).pathExtension.lowercased() == "png" {
            do {
                try options.write(
                    try PNGPlot(data, width: width, timeZone: options.display.times.zone, overlay: overlay).png())
            } catch let error as ReportError {
                throw CLIError(error.message)
            }
        } else {
            try options.write(
                Array(SVGPlot(data, width: width, timeZone: options.display.times.zone, overlay: overlay).text.utf8))
        }
        let plots = overlay ? min(1, data.lanes.count) : data.lanes.count
        try options.report(
            "Wrote \(options.output): \(plots) plot(s), \(data.events.count) event stream(s).", data,
            command: "plot", losses: false, plots: plots)
    }

    /// `--xy`: one field against another.
    private func runXY(x: String, y: String) throws {
        let data = try options.buildXY(x: x, y: y)
        let plot = XYPlot(data, width: width)
        if (options.output as NSString).pathExtension.lowercased() == "png" {
            do {
                try options.write(try plot.png())
            } catch let error as ReportError {
                throw CLIError(error.message)
            }
        } else {
            try options.write(Array(plot.svg.utf8))
        }
        let points = data.streams.map(\.count).reduce(0, +)
        try options.report(
            "Wrote \(options.output): \(y) against \(x), \(points) point(s) of \(data.streams.count) stream(s).", data)
    }
}
