/// One decoded Obvious profile-v1 notification: the ``ObviousDecoder``'s `Value`.
///
/// The `Codable` form is an object with one key, the case name, holding the
/// payload's own form, for example `{"upgradeProgress":40}`,
/// `{"upgradeStatus":"success"}` or
/// `{"featureStatus":[{"featureID":7,"enabled":true,"toggle":"activated"}]}`.
///
/// ```swift
/// let message = try ObviousDecoder().decode([0x03, 0x28], from: ObviousGATT.data)
/// print(message == .upgradeProgress(40)) // true
/// ```
public enum ObviousMessage: Sendable, Hashable, Codable {
    /// Record `0x01`: the status of one or more features, in wire order.
    case featureStatus([ObviousFeatureStatus])
    /// Record `0x02`: the running firmware version (possibly invalid).
    case firmwareVersion(ObviousFirmwareVersion)
    /// Record `0x03`: firmware upgrade progress, 0…100 percent.
    case upgradeProgress(UInt8)
    /// Record `0x04`: the final status of a firmware upgrade.
    case upgradeStatus(ObviousUpgradeStatus)

    /// The record type this message is sent as.
    public var recordType: ObviousRecordType {
        switch self {
        case .featureStatus: .featureStatus
        case .firmwareVersion: .firmwareVersion
        case .upgradeProgress: .upgradeProgress
        case .upgradeStatus: .upgradeStatus
        }
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case featureStatus, firmwareVersion, upgradeProgress, upgradeStatus
    }

    /// Decodes the one-key form written by ``encode(to:)``.
    ///
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError` unless the object has exactly one known key.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard container.allKeys.count == 1, let key = container.allKeys.first else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: container.codingPath,
                    debugDescription: "Expected exactly one of \(CodingKeys.allCases.map(\.stringValue))."
                )
            )
        }
        switch key {
        case .featureStatus: self = .featureStatus(try container.decode([ObviousFeatureStatus].self, forKey: key))
        case .firmwareVersion: self = .firmwareVersion(try container.decode(ObviousFirmwareVersion.self, forKey: key))
        case .upgradeProgress: self = .upgradeProgress(try container.decode(UInt8.self, forKey: key))
        case .upgradeStatus: self = .upgradeStatus(try container.decode(ObviousUpgradeStatus.self, forKey: key))
        }
    }

    /// Encodes an object with the case name as its one key.
    ///
    /// - Parameter encoder: The encoder.
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .featureStatus(let features): try container.encode(features, forKey: .featureStatus)
        case .firmwareVersion(let version): try container.encode(version, forKey: .firmwareVersion)
        case .upgradeProgress(let percent): try container.encode(percent, forKey: .upgradeProgress)
        case .upgradeStatus(let status): try container.encode(status, forKey: .upgradeStatus)
        }
    }
}
