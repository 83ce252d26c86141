public import Devices

/// A simulated notification that knows what a correct decoder makes of it:
/// ``FamilyConformance`` compares decoded values with it. Every
/// ``SimulatedPacket`` does; a family with its own notification type
/// conforms it here.
public protocol SimulatedGroundTruth {
    /// The values a correct decoder emits for the notification, in order, or
    /// `nil` when it is malformed (the decoder must throw).
    var expectedValues: [any Sendable]? { get }
}

extension SimulatedPacket: SimulatedGroundTruth {
    /// The one encoded value, or `nil` when malformed.
    public var expectedValues: [any Sendable]? { expected.map { [$0] } }
}

extension DiotSimulator.SimulatedNotification: SimulatedGroundTruth {
    /// The events it encodes, or `nil` when malformed.
    public var expectedValues: [any Sendable]? { expected }
}

extension JacquardSimulator.SimulatedNotification: SimulatedGroundTruth {
    /// The values it completes (none for an inner fragment), or `nil` when malformed.
    public var expectedValues: [any Sendable]? { isMalformed ? nil : values }
}
