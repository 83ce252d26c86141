extension MessageSchema {
    /// The `ros2msg` definition of `builtin_interfaces/Time`, appended as a
    /// dependency the way MCAP's `ros2msg` encoding appends one.
    private static let timeDependency = """
        \(String(repeating: "=", count: 80))
        MSG: builtin_interfaces/Time
        int32 sec
        uint32 nanosec
        """

    /// The first field of every typed stream's messages: the sample time.
    private static let stampLine = "builtin_interfaces/Time stamp  # sample time: when the device measured it"

    /// This schema with the sample time, `builtin_interfaces/Time stamp`, as
    /// its first field (the way `std_msgs/Header` carries it) and the
    /// definition of `builtin_interfaces/Time` appended: what a typed
    /// stream's messages are recorded as. Leading comment lines stay first;
    /// an already stamped schema is returned as it is.
    public var stamped: MessageSchema {
        guard encoding == "ros2msg", !isStamped else { return self }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let comments = lines.prefix { $0.hasPrefix("#") }
        let body = lines.dropFirst(comments.count).joined(separator: "\n")
        let head = (comments + [Substring(Self.stampLine)]).joined(separator: "\n")
        var schema = self
        schema.text = head + "\n" + body + (body.hasSuffix("\n") || body.isEmpty ? "" : "\n") + Self.timeDependency
        return schema
    }

    /// Whether the schema's first field is the sample time `stamp`.
    public var isStamped: Bool {
        let field = text.split(separator: "\n").first { line in
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            return !trimmed.isEmpty && !trimmed.hasPrefix("#")
        }
        guard let parts = field?.split(whereSeparator: { $0 == " " || $0 == "\t" }), parts.count >= 2 else {
            return false
        }
        return (parts[0] == "builtin_interfaces/Time" || parts[0] == "builtin_interfaces/msg/Time")
            && parts[1] == "stamp"
    }
}
