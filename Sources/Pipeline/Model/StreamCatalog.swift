import Devices
import Recording

/// The typed streams each family's decoder can produce (the last topic
/// levels, `/<family>/<device>/<stream>`), used to reject a topic pattern no
/// declared device can produce. Raw streams (`raw/<uuid>`) exist for every family.
enum StreamCatalog {
    /// The stream names of a family.
    static func streams(of family: DeviceFamily) -> [String] {
        switch family {
        case .diot:
            (0...255).map { DiotFeature(rawValue: UInt8($0)).topicName }
                + ["channel_empty", "features", "channel_map", "channel_rates", "battery", "device_information",
                   "chip_id", "debug_log"]
        case .comodule:
            ComodulePropertyTable.default.properties.flatMap { [$0.identifier, $0.identifier + "/write_ack",
                                                                 $0.identifier + "/error"] }
        case .jacquard:
            JacquardValue.schemas.keys.sorted()
        case .fjorden:
            ["grip", "battery", "device_information"]
        case .obvious:
            ["feature_status", "firmware_version", "upgrade_progress", "upgrade_status"]
        }
    }

    /// A few stream names of a family, for an error message.
    static func examples(of family: DeviceFamily) -> String {
        let names = streams(of: family).filter { !$0.hasPrefix("unknown_") && !$0.contains("/") }
        return names.prefix(12).joined(separator: ", ") + (names.count > 12 ? ", …" : "")
    }
}
