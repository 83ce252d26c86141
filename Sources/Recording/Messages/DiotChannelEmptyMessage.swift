/// The recorded form of a DIoT "channel empty" notification (the single
/// byte `00`): an event, not an error. Schema `tlm/msg/DiotChannelEmpty`,
/// stream `/diot/<device>/channel_empty`.
public enum DiotChannelEmptyMessage {
    /// The schema.
    public static let schema = MessageSchema(name: "tlm/msg/DiotChannelEmpty", text: """
        # A DIoT data channel reported that it has no feature bound.
        uint8 channel
        """)

    /// Encodes the event for a channel (1...9).
    public static func encode(channel: UInt8) -> [UInt8] {
        [0x00, 0x01, 0x00, 0x00, channel]
    }
}
