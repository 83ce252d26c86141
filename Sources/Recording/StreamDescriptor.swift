public import Devices
import ROS2

/// Describes one recorded stream: its topic, schema and what kind of data it
/// carries. Each stream is one MCAP channel.
///
/// Topics follow `/<family>/<device>/<stream>`; raw notifications of a
/// characteristic are the stream `/<family>/<device>/raw/c_<uuid hex>`.
/// Every topic is a valid ROS 2 topic name (`ROS2Name`): the device and
/// stream parts are made valid by `ROS2Name.token(_:prefix:)`, and
/// ``Recorder/addStream(_:)`` refuses a topic that is not.
public struct StreamDescriptor: Sendable, Hashable {
    /// What a stream carries.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// Decoded, typed values.
        case typed
        /// Raw notifications, byte for byte.
        case raw
        /// Events that carry no measurement (for example "channel empty").
        case event
    }

    /// The topic, for example `/diot/d_9F3A0C11/acc_x`.
    public var topic: String
    /// What the stream carries.
    public var kind: Kind
    /// The schema of its messages.
    public var schema: MessageSchema
    /// A unit for display (metadata only; values are never rescaled).
    public var unit: String?
    /// Whether messages carry a numeric value the index keeps statistics of.
    public var isNumeric: Bool
    /// The device the stream comes from.
    public var device: DeviceHandle?
    /// Whether the stream is latched: its values are state (device
    /// information, settings, a battery level) sent once or on change, so
    /// its last message stays true until the next. The recording offers it
    /// with durability `transient_local`, and slices that start later, late
    /// live subscribers and replays start with its last message before the
    /// start (`docs/recording.md`, "Latched topics").
    public var isLatched: Bool

    /// Creates a stream descriptor.
    public init(
        topic: String, kind: Kind, schema: MessageSchema, unit: String? = nil, isNumeric: Bool = false,
        device: DeviceHandle? = nil, isLatched: Bool = false
    ) {
        self.topic = topic
        self.kind = kind
        self.schema = schema
        self.unit = unit
        self.isNumeric = isNumeric
        self.device = device
        self.isLatched = isLatched
    }

    /// The topic of a stream of a device: `/<family>/<device>/<stream>`, the
    /// device identifier as `ROS2Name.deviceToken(_:)` makes it a topic
    /// part and `stream` as `ROS2Name.streamLevels(_:)` makes it topic
    /// levels; both are kept as they are when already valid.
    ///
    /// ```swift
    /// StreamDescriptor.topic(family: .comodule, device: "SCOOT-8FB8", stream: "speed")
    /// // "/comodule/SCOOT_8FB8/speed"
    /// ```
    public static func topic(family: DeviceFamily, device: String, stream: String) -> String {
        "/\(family.rawValue)/\(ROS2Name.deviceToken(device))/\(ROS2Name.streamLevels(stream))"
    }

    /// The topic of a characteristic's raw notifications:
    /// `/<family>/<device>/raw/c_<uuid hex>` (`ROS2Name.characteristicToken(_:)`).
    public static func rawTopic(family: DeviceFamily, device: String, characteristic: CharacteristicUUID) -> String {
        "/\(family.rawValue)/\(ROS2Name.deviceToken(device))/raw/\(ROS2Name.characteristicToken(characteristic))"
    }
}

/// A device registered with a ``Recorder``.
public struct DeviceHandle: Sendable, Hashable {
    /// The index's row id of the device.
    public let id: Int64
    /// The device's family.
    public let family: DeviceFamily
    /// The identifier used in topics.
    public let identifier: String

    /// The name of the device's MCAP Metadata record, unique in a segment:
    /// `device/<family>/<identifier>`. Recordings made before it name every
    /// device's record `device`; ``isDeviceMetadataName(_:)`` accepts both.
    public var metadataName: String { "device/\(family.rawValue)/\(identifier)" }

    /// Whether an MCAP Metadata record of this name describes a device.
    public static func isDeviceMetadataName(_ name: String) -> Bool {
        name == "device" || name.hasPrefix("device/")
    }
}

/// A stream registered with a ``Recorder``; pass it to ``Recorder/write(_:logTime:publishTime:payload:numericValue:)-(_,_,_,[UInt8],_)``.
public struct StreamHandle: Sendable, Hashable {
    /// The MCAP channel id, the same in every segment of the recording.
    public let channelID: UInt16
    /// The index's row id of the stream.
    public let streamID: Int64
    /// The topic.
    public let topic: String
}
