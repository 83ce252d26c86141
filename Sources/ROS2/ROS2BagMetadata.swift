import Yams

/// A ROS 2 bag's metadata (rosbag2's `mcap` storage): the Header profile and
/// channel QoS every segment carries, and the bag's `metadata.yaml` document,
/// made with Yams (`docs/specs/recording.md`, "A recording is a ROS 2 bag").
package enum ROS2BagMetadata {
    /// The MCAP Header profile of every segment.
    package static let profile = "ros2"
    /// The channel metadata key rosbag2 keeps a topic's QoS under.
    package static let qosKey = "offered_qos_profiles"
    /// The bag's metadata file, in the bag directory.
    package static let fileName = "metadata.yaml"
    /// The rosbag2 metadata version written (QoS policies as names).
    package static let version = 9

    /// The QoS a channel offers, as rosbag2 records a publisher with ROS 2's
    /// default QoS: reliable, automatic liveliness, no deadline, lifespan or
    /// lease (infinite), history and depth as discovery reports them
    /// (`unknown`, 0: they are not sent over the wire), and durability
    /// `volatile` — or `transient_local` for a latched topic (a stream whose
    /// last message stays true until the next: a late subscriber gets it).
    /// One profile, in a YAML sequence.
    private static func offeredQoSProfilesNode(latched: Bool) -> Node { [qosProfile(latched: latched)] }

    /// The profiles of a volatile (not latched) topic as YAML text, the form the channel metadata holds.
    package static let offeredQoSProfiles: String = profilesText(latched: false)

    /// The profiles of a latched topic (durability `transient_local`) as YAML text.
    package static let latchedQoSProfiles: String = profilesText(latched: true)

    /// The profiles of a topic, latched or not, as YAML text.
    package static func offeredQoSProfiles(latched: Bool) -> String {
        latched ? latchedQoSProfiles : offeredQoSProfiles
    }

    private static func profilesText(latched: Bool) -> String {
        do {
            return try yaml(offeredQoSProfilesNode(latched: latched))
        } catch {
            // A constant of strings, integers and booleans; the tests write it.
            preconditionFailure("the QoS profile YAML could not be written: \(error)")
        }
    }

    private static func qosProfile(latched: Bool) -> Node {
        let infinite: Node = ["sec": 9_223_372_036, "nsec": 854_775_807]
        return [
            "history": "unknown", "depth": 0, "reliability": "reliable",
            "durability": latched ? "transient_local" : "volatile",
            "deadline": infinite, "lifespan": infinite, "liveliness": "automatic",
            "liveliness_lease_duration": infinite, "avoid_ros_namespace_conventions": Node("false", Tag(.bool)),
        ]
    }

    /// Whether `offered_qos_profiles` text (a channel's metadata, as rosbag2
    /// writes it) offers durability `transient_local`: by name (metadata
    /// version 9 on) or by rosbag2's older number (1). Text that is not a
    /// sequence of profiles is not latched.
    package static func isTransientLocal(profiles text: String) -> Bool {
        guard let node = try? Yams.compose(yaml: text), let profiles = node.sequence else { return false }
        return profiles.contains { profile in
            guard let durability = profile.mapping?["durability"]?.scalar?.string else { return false }
            return durability == "transient_local" || durability == "1"
        }
    }

    /// One topic of the bag.
    package struct Topic: Equatable, Sendable {
        package var name: String
        package var type: String
        package var serializationFormat: String
        package var messageCount: Int
        /// Whether the topic is latched (durability `transient_local`).
        package var isLatched: Bool

        package init(
            name: String, type: String, serializationFormat: String, messageCount: Int, isLatched: Bool = false
        ) {
            self.name = name
            self.type = type
            self.serializationFormat = serializationFormat
            self.messageCount = messageCount
            self.isLatched = isLatched
        }
    }

    /// One file (segment) of the bag.
    package struct File: Equatable, Sendable {
        package var path: String
        package var startTime: Int64
        package var endTime: Int64
        package var messageCount: Int

        package init(path: String, startTime: Int64, endTime: Int64, messageCount: Int) {
            self.path = path
            self.startTime = startTime
            self.endTime = endTime
            self.messageCount = messageCount
        }
    }

    /// The text of `metadata.yaml` for these topics and files; `custom` is
    /// the bag's `custom_data`, in key order.
    ///
    /// - Throws: Yams' `YamlError` if the emitter fails.
    package static func text(topics: [Topic], files: [File], custom: [String: String]) throws -> String {
        let customPairs: [(Node, Node)] = custom.sorted { $0.key < $1.key }.map { (string($0.key), string($0.value)) }
        let withMessages = files.filter { $0.messageCount > 0 }
        let start = withMessages.map(\.startTime).min() ?? 0
        let end = withMessages.map(\.endTime).max() ?? 0
        let information: Node = [
            "version": Node(integer: version),
            "storage_identifier": "mcap",
            "duration": ["nanoseconds": Node(integer: max(0, end - start))],
            "starting_time": ["nanoseconds_since_epoch": Node(integer: start)],
            "message_count": Node(integer: topics.map(\.messageCount).reduce(0, +)),
            "topics_with_message_count": sequence(
                topics.map { topic -> Node in
                    [
                        "topic_metadata": [
                            "name": string(topic.name), "type": string(topic.type),
                            "serialization_format": string(topic.serializationFormat),
                            "offered_qos_profiles": offeredQoSProfilesNode(latched: topic.isLatched),
                            "type_description_hash": string(""),
                        ],
                        "message_count": Node(integer: topic.messageCount),
                    ]
                }),
            "compression_format": string(""),
            "compression_mode": string(""),
            "relative_file_paths": sequence(files.map { string($0.path) }),
            "files": sequence(
                files.map { file -> Node in
                    let counted = file.messageCount > 0
                    let start: Int64 = counted ? file.startTime : 0
                    let length: Int64 = counted ? max(0, file.endTime - file.startTime) : 0
                    return [
                        "path": string(file.path),
                        "starting_time": ["nanoseconds_since_epoch": Node(integer: start)],
                        "duration": ["nanoseconds": Node(integer: length)],
                        "message_count": Node(integer: file.messageCount),
                    ]
                }),
            "custom_data": Node(customPairs, .implicit, custom.isEmpty ? .flow : .block),
            "ros_distro": string(""),
        ]
        return try yaml(["rosbag2_bagfile_information": information])
    }

    /// A string as a double-quoted YAML scalar: never read back as a number,
    /// a boolean or null, whatever it holds; control characters escaped.
    private static func string(_ text: String) -> Node {
        Node(text, Tag(.str), .doubleQuoted)
    }

    /// A block sequence, or `[]` when empty.
    private static func sequence(_ nodes: [Node]) -> Node {
        Node(nodes, .implicit, nodes.isEmpty ? .flow : .block)
    }

    /// `node` serialised as block YAML, Unicode kept as it is, no line folding.
    private static func yaml(_ node: Node) throws -> String {
        try Yams.serialize(node: node, width: -1, allowUnicode: true)
    }
}

extension Node {
    /// An integer scalar.
    fileprivate init(integer value: some BinaryInteger) { self.init(String(value), Tag(.int)) }
}
