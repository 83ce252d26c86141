import MCAP
public import Recording

/// Plays a finished recording to a ``LiveViewServer`` at a pace, so a
/// session can be watched in Foxglove after the fact: every stream is
/// advertised with the schema of its segments, then the messages go out in
/// ``time`` order with those times (sample time by default: a stamped
/// stream's `publish_time`, any other's log time), paced by them.
///
/// ```swift
/// let server = try await LiveViewServer.start(at: LiveViewAddress(port: 8765))
/// let played = try await RecordingPlayer(directory: "ride").play(to: server, rate: 10)
/// ```
public struct RecordingPlayer: Sendable {
    /// The recording directory.
    public var directory: String
    /// Earliest time played (inclusive), in ``time``; `nil` for the start.
    public var from: UInt64?
    /// Latest time played (exclusive), in ``time``; `nil` for the end.
    public var to: UInt64?
    /// The time that orders, selects, paces and stamps the messages sent.
    public var time: MessageTime
    /// Whether a play from ``from`` begins with each latched topic's last
    /// message before it (sent at once, unpaced), and latched channels are
    /// advertised as such: a client that subscribes late gets their last message.
    public var latched: Bool
    /// The topics advertised and played; `nil` for every topic of the recording.
    public var topics: Set<String>?

    /// A player of the recording in `directory`, between `from` and `to` in
    /// `time`; with `latched`, beginning with each latched topic's last message before `from`.
    public init(
        directory: String, from: UInt64? = nil, to: UInt64? = nil, time: MessageTime = .sample, latched: Bool = false
    ) {
        self.directory = directory
        self.from = from
        self.to = to
        self.time = time
        self.latched = latched
    }

    /// Advertises the recording's streams on `server` and plays its messages,
    /// at `rate` times real time (`nil`: as fast as possible), until the end
    /// or until the task is cancelled.
    ///
    /// - Parameters:
    ///   - server: Where to play.
    ///   - rate: A multiple of real time within `ReplayRate.range`; `nil` for no pacing.
    ///   - waitingForSubscriber: Start playing only once a client subscribed to a channel.
    /// - Returns: The messages played.
    /// - Throws: ``LiveViewError`` (`.recording`) when the recording cannot be read.
    public func play(
        to server: LiveViewServer, rate: Double?, waitingForSubscriber: Bool = false
    ) async throws(LiveViewError) -> Int {
        if let rate {
            do { try ReplayRate.validate(rate) } catch { throw LiveViewError(.recording, error.message) }
        }
        do {
            let reader = try RecordingReader(directory: directory)
            let definitions = try reader.channelDefinitions()
            var channelOfTopic: [String: UInt16] = [:]
            for (topic, (schema, channel)) in definitions.sorted(by: { $0.value.1.id < $1.value.1.id })
            where topics?.contains(topic) ?? true {
                channelOfTopic[topic] = channel.id
                server.advertise(
                    LiveChannel(
                        id: channel.id, topic: topic, schemaName: schema.name,
                        schema: String(decoding: schema.data, as: UTF8.self), encoding: channel.messageEncoding,
                        schemaEncoding: schema.encoding, isLatched: latched && reader.latchedTopics.contains(topic)))
            }
            while waitingForSubscriber, server.subscriptionCount == 0, !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(10))
            }
            let stamped = time == .sample ? try reader.sampleTimeTopics() : []
            let context = try reader.exportContext(topics: Array(channelOfTopic.keys).sorted())
            let messages = try RecordingSource(reader).messageCursor(
                topics: context.topics, from: from, to: to, time: time, latched: latched)
            let clock = ContinuousClock()
            let start = clock.now
            var first: UInt64?
            var played = 0
            while let message = try messages.next() {
                if Task.isCancelled { break }
                guard let channelID = channelOfTopic[message.topic] else { continue }
                let instant = time.of(message, stamped: stamped.contains(message.topic))
                // A latched message from before the start goes out at once.
                if let rate, instant >= from ?? 0 {
                    let origin = first ?? instant
                    first = origin
                    let offset = ReplayRate.offset(ofNanoseconds: instant - min(instant, origin), rate: rate)
                    if start + offset > clock.now {
                        do { try await clock.sleep(until: start + offset) } catch { break }
                    }
                }
                message.payload.withUnsafeBytes { payload in
                    server.publish(channelID: channelID, logTime: instant, payload: payload)
                }
                played += 1
            }
            return played
        } catch {
            throw LiveViewError(.recording, "cannot play \(directory): \(error.message)")
        }
    }
}
