import Foundation
import Quantities
public import Recording

/// A key of ``ParquetExporter``'s Hive-style layout: each key is one level
/// of `key=value` directories, in the order given.
///
/// ```swift
/// let keys = try ParquetPartitionKey.parse("device,date")  // [.device, .date]
/// // out/device=9F3A0C11/date=2026-11-22/diot.acc_x@ride.parquet
/// ```
public enum ParquetPartitionKey: String, Sendable, Hashable, CaseIterable {
    /// The stream's device identifier (`__HIVE_DEFAULT_PARTITION__`, read as
    /// null, for a stream without a device).
    case device
    /// The stream's device family (`__HIVE_DEFAULT_PARTITION__` without a device).
    case family
    /// The UTC day of each row's log time, `YYYY-MM-DD`: a stream that spans
    /// midnight has a file in each day's directory.
    case date

    /// The value Hive and the engines that follow it read as null.
    public static let nullValue = "__HIVE_DEFAULT_PARTITION__"

    /// Parses a comma-separated list of keys, each once.
    ///
    /// - Throws: `RecordingError` (`.invalidConfiguration`) naming the
    ///   supported keys, for an unknown, repeated or empty key.
    public static func parse(_ text: String) throws(RecordingError) -> [ParquetPartitionKey] {
        var keys: [ParquetPartitionKey] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let name = part.trimmingCharacters(in: .whitespaces)
            guard let key = ParquetPartitionKey(rawValue: name) else {
                throw RecordingError(
                    .invalidConfiguration,
                    "unknown partition key '\(name)'; the keys are "
                        + allCases.map(\.rawValue).joined(separator: ", "))
            }
            guard !keys.contains(key) else {
                throw RecordingError(.invalidConfiguration, "partition key '\(name)' is given twice")
            }
            keys.append(key)
        }
        return keys
    }

    /// The key's value for a topic's rows of a day.
    ///
    /// - Parameters:
    ///   - topic: The exported topic.
    ///   - day: Days since 1970-01-01 (UTC) of the rows' log time.
    /// - Returns: The directory name's value (made safe for a path).
    func value(for topic: ExportTopic, day: Int64) -> String {
        switch self {
        case .device: topic.device.map { Self.pathSafe($0.identifier) } ?? Self.nullValue
        case .family: topic.device.map { Self.pathSafe($0.family) } ?? Self.nullValue
        case .date: Self.isoDate(day: day)
        }
    }

    /// `text` with every character but ASCII letters, digits, `.`, `_` and
    /// `-` replaced by `_`, never empty and never starting with `.` or `_`
    /// (names readers treat as hidden).
    static func pathSafe(_ text: String) -> String {
        var safe = String(
            text.unicodeScalars.map { scalar -> Character in
                scalar.isASCII
                    && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                        || "._-".unicodeScalars.contains(scalar))
                    ? Character(scalar) : "_"
            })
        if safe.isEmpty { safe = "x" }
        if safe.hasPrefix(".") || safe.hasPrefix("_") { safe = "x" + safe }
        return safe
    }

    /// The proleptic Gregorian date `YYYY-MM-DD` of a day since the Unix epoch.
    static func isoDate(day: Int64) -> String {
        let (year, month, dayOfMonth) = CivilDate.civil(fromDays: day)
        func pad(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(dayOfMonth, 2))"
    }
}
