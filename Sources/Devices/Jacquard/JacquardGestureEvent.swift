/// A recognised gesture: a GEAR notification carrying a DataChannel
/// payload (extension 917) whose `inference_data` holds an `event`.
///
/// The `Codable` form uses the spec's field names:
/// `{"event":"doubleTap","component_id":1,"timestamp_ticks":0}`.
///
/// ```swift
/// var decoder = JacquardDecoder()
/// let bytes: [UInt8] = [0xC0, 0x0B, 0x08, 0x08, 0x10, 0x05, 0xAA, 0x39, 0x04, 0x0A, 0x02, 0x08, 0x01]
/// try decoder.decode(bytes, from: JacquardGATT.notify) { value in
///     if case .gesture(let event) = value { print(event.gesture) } // doubleTap
/// }
/// ```
public struct JacquardGestureEvent: Sendable, Hashable, Codable {
    /// The gesture (`inference_data.event`).
    public var gesture: JacquardGesture
    /// The component that notified (envelope field 3; 0 when absent).
    public var componentID: UInt32
    /// The DataChannel's `timestamp_ticks` (field 3; 0 when absent).
    public var timestampTicks: UInt32

    /// Creates a gesture event.
    ///
    /// - Parameters:
    ///   - gesture: The gesture.
    ///   - componentID: The component that notified.
    ///   - timestampTicks: The device timestamp, in ticks.
    @inlinable
    public init(gesture: JacquardGesture, componentID: UInt32 = 0, timestampTicks: UInt32 = 0) {
        self.gesture = gesture
        self.componentID = componentID
        self.timestampTicks = timestampTicks
    }

    enum CodingKeys: String, CodingKey {
        case gesture = "event"
        case componentID = "component_id"
        case timestampTicks = "timestamp_ticks"
    }
}
