import Devices

/// Turns on gesture mode whenever a tag reports attached gear: decodes the
/// notify characteristic and answers an `Attached` notification.
final class JacquardGestureMode: CaptureReaction {
    private var decoder = JacquardDecoder()
    /// Ids after the start-up requests; the SDK counts modulo 255 from 1.
    private var nextID: UInt32 = 5

    func writes(after notification: RawNotification) -> [CaptureProfile.Write] {
        guard notification.characteristic == JacquardGATT.notify else { return [] }
        var attached: [UInt32] = []
        try? decoder.decode(notification) { value in
            if case .attached(let gear) = value, gear.attachState { attached.append(gear.componentID) }
        }
        var writes: [CaptureProfile.Write] = []
        for component in attached {
            for message in [
                JacquardHandshake.gestureMode(component: component, id: takeID()),
                JacquardHandshake.queueDepth(14, id: takeID()),
            ] {
                writes += message.map {
                    CaptureProfile.Write(characteristic: JacquardGATT.command, bytes: $0, type: "request")
                }
            }
        }
        return writes
    }

    private func takeID() -> UInt32 {
        defer { nextID = nextID % 254 + 1 }
        return nextID
    }
}
