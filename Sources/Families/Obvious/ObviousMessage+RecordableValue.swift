public import DeviceRecording
public import Devices
public import ROS2
public import Recording

/// How Obvious messages are recorded: feature status on
/// `/obvious/<device>/feature_status` (parallel arrays, one entry per
/// feature), the firmware version on `firmware_version` (invalid codes kept
/// and flagged), and upgrade progress and status on `upgrade_progress` and
/// `upgrade_status`.
extension ObviousMessage: RecordableValue {
    public static let featureStatusSchema = MessageSchema(
        name: "tlm/msg/ObviousFeatureStatus",
        text: """
            # Feature status records; entry i of each array belongs to the same feature.
            # toggles: unknown, unsupported, deactivated or activated; a disabled feature is locked.
            uint16[] feature_ids
            bool[] enabled
            string[] toggles
            """)
    public static let firmwareSchema = MessageSchema(
        name: "tlm/msg/FirmwareVersion",
        text: """
            # Decimal-packed version code major*1000000 + minor*1000 + patch; valid is false when a part is out of 0...999.
            int64 code
            bool valid
            string version
            """)
    public static let progressSchema = MessageSchema(
        name: "tlm/msg/UpgradeProgress",
        text: """
            uint8 percent
            """)
    public static let statusSchema = MessageSchema(
        name: "tlm/msg/UpgradeStatus",
        text: """
            uint8 code
            string status
            """)

    public var streamKey: Int {
        switch self {
        case .featureStatus: 0
        case .firmwareVersion: 1
        case .upgradeProgress: 2
        case .upgradeStatus: 3
        }
    }

    public var streamSpec: RecordedStream {
        switch self {
        case .featureStatus: RecordedStream(name: "feature_status", schema: Self.featureStatusSchema, isLatched: true)
        case .firmwareVersion: RecordedStream(name: "firmware_version", schema: Self.firmwareSchema, isLatched: true)
        case .upgradeProgress: RecordedStream(name: "upgrade_progress", schema: Self.progressSchema, unit: "%")
        case .upgradeStatus: RecordedStream(name: "upgrade_status", kind: .event, schema: Self.statusSchema)
        }
    }

    public func encode(into cdr: inout CDRWriter) -> Double? {
        switch self {
        case .featureStatus(let features):
            cdr.writeIntegerSequence(features.map(\.featureID))
            cdr.writeBoolSequence(features.map(\.enabled))
            cdr.writeStringSequence(features.map(\.toggle.rawValue))
        case .firmwareVersion(let version):
            cdr.write(version.code)
            cdr.write(version.isValid)
            cdr.write(version.description)
        case .upgradeProgress(let percent):
            cdr.write(percent)
        case .upgradeStatus(let status):
            cdr.write(status.code)
            cdr.write(status.rawValue)
        }
        return nil
    }
}
