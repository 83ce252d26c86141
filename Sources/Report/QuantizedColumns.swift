import Foundation

/// A level's columns as the HTML report carries them: minimum, maximum and
/// mean of each column as 16-bit steps between the stream's minimum and
/// maximum (65,535 marks an empty column), little-endian, in Base64 — six
/// bytes a column before Base64, whatever the number of samples.
enum QuantizedColumns {
    /// The value that marks an empty column.
    static let empty: UInt16 = 0xFFFF
    /// Steps between the stream's minimum (0) and maximum.
    static let steps = 65534.0

    /// The Base64 text of `level`'s columns scaled to `low ... high`.
    static func encode(_ level: PlotLevel, low: Double, high: Double) -> String {
        var bytes = [UInt8]()
        bytes.reserveCapacity(level.columnCount * 6)
        func append(_ value: UInt16) {
            bytes.append(UInt8(value & 0xFF))
            bytes.append(UInt8(value >> 8))
        }
        let range = high - low
        func step(_ value: Double) -> UInt16 {
            guard range > 0, value.isFinite else { return 0 }
            return UInt16(max(0, min(steps, ((value - low) / range * steps).rounded())))
        }
        for column in 0..<level.columnCount {
            guard level.counts[column] > 0 else {
                append(empty)
                append(empty)
                append(empty)
                continue
            }
            append(step(level.minimums[column]))
            append(step(level.maximums[column]))
            append(step(level.means[column]))
        }
        return Data(bytes).base64EncodedString()
    }
}
