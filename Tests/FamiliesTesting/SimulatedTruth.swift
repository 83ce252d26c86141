import Devices

/// One simulated notification as ``FamilyConformance`` sees it: what was
/// sent and what it should decode to.
struct SimulatedTruth: Sendable, Hashable {
    /// What a correct decoder makes of a notification.
    enum Expected: Sendable, Hashable {
        /// The simulator does not say.
        case unknown
        /// An error.
        case malformed
        /// These values, by description, in order.
        case values([String])
    }

    var offset: Duration
    var characteristic: CharacteristicUUID
    var bytes: [UInt8]
    var expected: Expected
}
