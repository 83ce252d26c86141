/// A decoded DIoT data-channel notification: either the channel-empty event
/// or a run of feature records.
///
/// ```swift
/// switch try DiotDecoder().decode(notification) {
/// case .empty(let channel):
///     print("\(channel) is empty")
/// case .records(let records):
///     for record in records { print(record.feature, record.value.numericValue) }
/// }
/// ```
public enum DiotPacket: Sendable, Hashable {
    /// The single byte `00`: the channel has nothing to send. An event, not an error.
    case empty(DiotChannel)
    /// One or more 5-byte records, decoded on access.
    case records(DiotRecords)

    /// The channel that notified.
    @inlinable
    public var channel: DiotChannel {
        switch self {
        case .empty(let channel): channel
        case .records(let records): records.channel
        }
    }

    /// The records; an empty collection for ``empty(_:)``.
    @inlinable
    public var records: DiotRecords {
        switch self {
        case .empty(let channel): DiotRecords(emptyOn: channel)
        case .records(let records): records
        }
    }
}
