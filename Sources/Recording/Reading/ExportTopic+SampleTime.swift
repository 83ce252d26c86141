extension ExportTopic {
    /// Whether the topic's messages carry a sample time: its schema is
    /// `ros2msg` with `builtin_interfaces/Time stamp` as the first field
    /// (see `MessageSchema.isStamped`). Its MCAP `publish_time` is then the
    /// sample time; any other topic's sample time is its receive time.
    public var hasSampleTime: Bool {
        MessageSchema(
            name: schemaName, encoding: schemaEncoding, text: String(decoding: schemaData, as: UTF8.self),
            messageEncoding: messageEncoding
        ).isStamped
    }
}
