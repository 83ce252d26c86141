import Foundation
import ROS2
import Recording
import RecordingExport

/// Rows printed as they come, as an aligned table, CSV or JSON lines.
///
/// CSV and JSON lines print each row at once. A table waits for the first
/// ``lookahead`` rows (or the end) to size its columns, prints them, then
/// prints later rows at once in the same columns (a longer value widens only
/// its own row), so memory stays bounded on any number of rows.
struct TableOutput {
    let format: QueryCommand.Format
    /// Rows a table reads before it sizes its columns.
    let lookahead: Int
    private var columns: [String] = []
    /// Table rows waiting for the column widths.
    private var pending: [[String]] = []
    /// The table's column widths, once fixed.
    private var widths: [Int]?
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
    /// Where lines go (standard output unless a test says otherwise).
    private let emit: (String) -> Void

    init(format: QueryCommand.Format, lookahead: Int = 1_000, emit: @escaping (String) -> Void = { print($0) }) {
        self.format = format
        self.lookahead = max(1, lookahead)
        self.emit = emit
    }

    mutating func header(_ names: [String]) {
        columns = names
        if format == .csv { emit(names.map(CSVExporter.field).joined(separator: ",")) }
    }

    /// One row; `json` gives a message's log and publish times, topic and
    /// fields for JSON lines, `jsonLine` a row's JSON line as it is (without
    /// either, a JSON line maps the columns to the values as strings).
    mutating func row(
        _ values: [String], json: (UInt64, UInt64, String, [(name: String, value: CDRValue)])? = nil,
        jsonLine: String? = nil
    )
        throws(RecordingError)
    {
        switch format {
        case .csv:
            emit(values.map(CSVExporter.field).joined(separator: ","))
        case .jsonl:
            if let jsonLine {
                emit(jsonLine)
            } else if let (logTime, publishTime, topic, fields) = json {
                emit(
                    try JSONLinesExporter.line(logTime: logTime, publishTime: publishTime, topic: topic, fields: fields)
                )
            } else {
                let object = Dictionary(zip(columns, values), uniquingKeysWith: { $1 })
                do {
                    emit(String(decoding: try encoder.encode(object), as: UTF8.self))
                } catch {
                    throw RecordingError(.unsupported, "cannot print a row as JSON: \(error)")
                }
            }
        case .table:
            if let widths {
                emit(line(values, widths))
            } else {
                pending.append(values)
                if pending.count >= lookahead { printPending() }
            }
        }
    }

    /// Prints what a table still holds (the header at least).
    mutating func flush() {
        guard format == .table, widths == nil else { return }
        printPending()
    }

    /// Sizes the columns from the header and the rows held, and prints them.
    private mutating func printPending() {
        let widths = columns.indices.map { index in
            max(columns[index].count, pending.map { index < $0.count ? $0[index].count : 0 }.max() ?? 0)
        }
        self.widths = widths
        emit(line(columns.map { $0.uppercased() }, widths))
        for row in pending { emit(line(row, widths)) }
        pending = []
    }

    private func line(_ values: [String], _ widths: [Int]) -> String {
        Columns.line(values, widths).trimmingCharacters(in: .whitespaces)
    }
}
