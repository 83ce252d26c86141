/// A Fjorden grip event: an event code and how many times it repeated
/// (dial detents). Encodes as `{"event": "dialButtonCW", "repeatCount": 3}`.
///
/// ```swift
/// let event = FjordenGripEvent(event: .dialButtonCW, repeatCount: 3)
/// print(FjordenEncoder.encode(event)) // [3, 3]
/// ```
public struct FjordenGripEvent: Sendable, Hashable, Codable {
    /// What happened.
    public var event: FjordenEventCode
    /// How many times (1…255; 1 when the notification has no count byte).
    public var repeatCount: UInt8

    /// Creates an event.
    ///
    /// - Parameters:
    ///   - event: The event code.
    ///   - repeatCount: How many times it repeated; 1 for a single event.
    public init(event: FjordenEventCode, repeatCount: UInt8 = 1) {
        self.event = event
        self.repeatCount = repeatCount
    }
}
