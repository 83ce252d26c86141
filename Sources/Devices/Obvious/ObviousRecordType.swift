/// The record type in byte 0 of an Obvious profile-v1 notification.
///
/// ```swift
/// print(ObviousRecordType(rawValue: 0x02) == .firmwareVersion) // true
/// ```
public enum ObviousRecordType: UInt8, Sendable, Hashable, Codable, CaseIterable {
    /// `0x01`: repeated 4-byte feature status records.
    case featureStatus = 0x01
    /// `0x02`: an `Int64` firmware version code.
    case firmwareVersion = 0x02
    /// `0x03`: upgrade progress, `UInt8` percent 0…100.
    case upgradeProgress = 0x03
    /// `0x04`: upgrade status, `UInt8` 0…4.
    case upgradeStatus = 0x04
}
