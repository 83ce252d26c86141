import ROS2
public import Recording

/// One value of a derived stream: the stream, the value and its log time.
///
/// ```swift
/// engine.onDerivedValue = { print($0.topic, $0.logTime, $0.value) }  // /derived/acc_magnitude 1700000000020000000 1.02
/// ```
public struct DerivedValue: Sendable, Hashable {
    /// The derived stream's name.
    public var name: String
    /// Its topic, `/derived/<name>`.
    public var topic: String
    /// The value.
    public var value: Double
    /// Its log time, nanoseconds since the Unix epoch.
    public var logTime: UInt64

    /// The schema derived streams are recorded with: `tlm/msg/DerivedValue`, one `float64 value`.
    public static let schema = MessageSchema(
        name: "tlm/msg/DerivedValue",
        text: """
            # A value a tlm pipeline derived from device streams with Streams operators (docs/pipelines.md).
            float64 value
            """)

    /// The CDR message of a value (header included).
    ///
    /// - Parameter value: The value.
    /// - Returns: The message bytes.
    public static func encode(_ value: Double) -> [UInt8] {
        var cdr = CDRWriter(capacity: 12)
        cdr.write(value)
        return cdr.bytes
    }

    /// The value of a `tlm/msg/DerivedValue` message, or `nil` if it is too short.
    ///
    /// - Parameter payload: The message bytes, header included.
    /// - Returns: The value.
    public static func decode(_ payload: [UInt8]) -> Double? {
        guard payload.count >= 12 else { return nil }
        var bits: UInt64 = 0
        for index in 0..<8 { bits |= UInt64(payload[4 + index]) << (8 * index) }
        return Double(bitPattern: bits)
    }
}
