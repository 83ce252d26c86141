/// Encodes ``ObviousMessage``s in recorder profile v1 (used by the simulator
/// and by tests); the inverse of ``ObviousDecoder``.
///
/// ```swift
/// print(ObviousEncoder.encode(.upgradeProgress(40))) // [3, 40]
/// ```
public enum ObviousEncoder {
    /// The profile-v1 bytes of a message.
    ///
    /// Values the decoder would reject (an empty feature list, progress above
    /// 100) are encoded as given, so tests can build malformed packets.
    ///
    /// - Parameter message: The message.
    /// - Returns: The record type byte and the body.
    public static func encode(_ message: ObviousMessage) -> [UInt8] {
        var bytes = [message.recordType.rawValue]
        switch message {
        case .featureStatus(let features):
            bytes.reserveCapacity(1 + 4 * features.count)
            for feature in features {
                bytes.append(UInt8(truncatingIfNeeded: feature.featureID))
                bytes.append(UInt8(truncatingIfNeeded: feature.featureID >> 8))
                bytes.append(feature.enabled ? 1 : 0)
                bytes.append(feature.toggle.code)
            }
        case .firmwareVersion(let version):
            let raw = UInt64(bitPattern: version.code)
            for shift in stride(from: 0, to: 64, by: 8) {
                bytes.append(UInt8(truncatingIfNeeded: raw >> UInt64(shift)))
            }
        case .upgradeProgress(let percent):
            bytes.append(percent)
        case .upgradeStatus(let status):
            bytes.append(status.code)
        }
        return bytes
    }
}
