public import Devices
import ROS2
import Streams

/// A recording as publishers: its messages per topic, its raw notifications,
/// or its devices' values decoded again from the raw notifications — in
/// log-time order, as fast as possible or paced by any `Clock` at a rate,
/// between optional start and end offsets.
///
/// Decoding the raw streams again through the family decoders reproduces
/// the typed streams the live session recorded, which is what makes a
/// recording a test fixture:
///
/// ```swift
/// let replay = try RecordingReplay(directory: "ride")
/// for await (time, value) in try replay.values(of: "9F3A0C11", decoder: DiotDecoder()) {
///     print(time, value)
/// }
/// ```
public struct RecordingReplay: Sendable {
    /// The recording directory.
    public let directory: String
    /// Skip messages before `start offset` from the first message.
    public var startOffset: Duration = .zero
    /// Stop before `end offset` from the first message (`nil`: to the end).
    public var endOffset: Duration?

    /// Opens a recording for replay.
    ///
    /// - Throws: ``RecordingError`` when there is no readable recording.
    public init(
        directory: String, from startOffset: Duration = .zero, to endOffset: Duration? = nil
    ) throws(RecordingError) {
        _ = try RecordingInfo.load(from: directory)
        self.directory = directory
        self.startOffset = startOffset
        self.endOffset = endOffset
    }

    /// The time range the offsets select, from the recording's first message.
    package func range() throws(RecordingError) -> (from: UInt64, to: UInt64) {
        let info = try RecordingInfo.load(from: directory)
        let first = info.streams.compactMap(\.firstTime).min() ?? 0
        let from = first &+ startOffset.nanosecondsClamped
        let to = endOffset.map { first &+ $0.nanosecondsClamped } ?? .max
        return (from, to)
    }

    /// The messages of `topics` as a publisher, released as fast as consumed.
    public func messages(topics: [String]) throws(RecordingError) -> ReplayPublisher<RecordedMessage, ContinuousClock> {
        let (from, to) = try range()
        let messages = try RecordingReader(directory: directory).messages(topics: topics, from: from, to: to)
        return ReplayPublisher(items: messages.map { ($0.logTime, $0) }, clock: nil, rate: 1)
    }

    /// The messages of `topics`, paced by `clock` at `rate` (2 = twice as fast as recorded).
    public func messages<C: Clock>(
        topics: [String], clock: C, rate: Double = 1
    ) throws(RecordingError)
        -> ReplayPublisher<RecordedMessage, C> where C.Duration == Duration
    {
        try ReplayRate.validate(rate)
        let (from, to) = try range()
        let messages = try RecordingReader(directory: directory).messages(topics: topics, from: from, to: to)
        return ReplayPublisher(items: messages.map { ($0.logTime, $0) }, clock: clock, rate: rate)
    }

    /// The raw notifications of a device (all its characteristics), in log-time order.
    public func rawNotifications(of device: String) throws(RecordingError) -> [RawNotification] {
        let (from, to) = try range()
        let reader = try RecordingReader(directory: directory)
        // The device's topic part (ROS2Name), or the identifier itself in
        // recordings made before topics followed the ROS 2 rule.
        let parts: Set<Substring> = [Substring(ROS2Name.deviceToken(device)), Substring(device)]
        let topics = reader.topics.filter {
            $0.split(separator: "/").count >= 3
                && parts.contains($0.split(separator: "/")[1]) && $0.contains("/raw/")
        }
        guard !topics.isEmpty else {
            throw RecordingError(.notFound, "no raw streams of a device \(device) in \(directory)")
        }
        return try reader.messages(topics: topics, from: from, to: to).compactMap {
            RawNotificationMessage.decode($0.payload)
        }
    }

    /// A device's values, decoded again from its raw notifications with
    /// `decoder`, paired with their receive times; malformed notifications
    /// are skipped, as the live decoder skipped them.
    public func values<D: PacketDecoder>(
        of device: String, decoder: D
    ) throws(RecordingError)
        -> ReplayPublisher<(time: UInt64, value: D.Value), ContinuousClock>
    {
        ReplayPublisher(items: try decodedValues(of: device, decoder: decoder), clock: nil, rate: 1)
    }

    /// A device's values decoded again, paced by `clock` at `rate`.
    public func values<D: PacketDecoder, C: Clock>(
        of device: String, decoder: D, clock: C, rate: Double = 1
    )
        throws(RecordingError) -> ReplayPublisher<(time: UInt64, value: D.Value), C> where C.Duration == Duration
    {
        try ReplayRate.validate(rate)
        return ReplayPublisher(items: try decodedValues(of: device, decoder: decoder), clock: clock, rate: rate)
    }

    private func decodedValues<D: PacketDecoder>(
        of device: String, decoder: D
    ) throws(RecordingError)
        -> [(time: UInt64, element: (time: UInt64, value: D.Value))]
    {
        var decoder = decoder
        var items: [(time: UInt64, element: (time: UInt64, value: D.Value))] = []
        for notification in try rawNotifications(of: device) {
            try? decoder.decode(notification) { value in
                items.append((notification.receiveTime, (notification.receiveTime, value)))
            }
        }
        return items
    }
}
