import ArgumentParser
import Foundation
import Report

/// `tlm plot REC --topic GLOB --output plot.svg`: the report's plots as one image.
struct PlotCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plot",
        abstract: "Draw a recording's streams as one SVG image: min/max/mean per pixel column, shared time axis.",
        discussion: """
            Each numeric stream is a lane (the band between each pixel column's minimum and maximum, and the \
            mean), each event stream a row of ticks, grouped per device; loss records and gaps are shaded. \
            Columns come from the index's per-chunk statistics, decoding only the chunks a column boundary \
            cuts through: the image's size follows its width, not the number of samples. PNG output is not \
            yet supported.

            Examples:
              tlm plot ride --topic '/diot/*/acc_*' --output acc.svg
              tlm plot ride --topic '/comodule/**' --from +1m --to +2m --width 2000 --output scooter.svg
            """
    )

    @OptionGroup var options: ReportOptions

    @Option(help: "The image's width in pixels, 400...8192.")
    var width: Int = 1400

    func validate() throws {
        guard (400...8192).contains(width) else { throw ValidationError("--width must be 400...8192 pixels") }
        let suffix = (options.output as NSString).pathExtension.lowercased()
        guard suffix == "svg" || suffix == "png" else {
            throw ValidationError("--output must end in .svg (or .png)")
        }
    }

    func run() throws {
        guard (options.output as NSString).pathExtension.lowercased() == "svg" else {
            throw CLIError("PNG output is not yet supported; write an .svg")
        }
        let data = try options.build(levels: 1)
        guard !data.series.isEmpty || !data.events.isEmpty else {
            throw CLIError("nothing to plot: no numeric or event stream with data among the selected topics")
        }
        try options.write(SVGPlot(data, width: width).text)
        print("Wrote \(options.output): \(data.series.count) plot(s), \(data.events.count) event stream(s).")
    }
}
