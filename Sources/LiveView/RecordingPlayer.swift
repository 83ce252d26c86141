import MCAP
public import Recording

/// Plays a finished recording to a ``LiveViewServer`` at a pace, so a
/// session can be watched in Foxglove after the fact: every stream is
/// advertised with the schema of its segments, then the messages go out in
/// ``time`` order with those times (sample time by default: a stamped
/// stream's `publish_time`, any other's log time), paced by them. A server
/// that declares the `time` capability (``LiveViewServer/Options/sendsTime``)
/// also gets the playback's clock as `time` messages; with ``loops`` the
/// playback starts again from ``from`` at the end, until cancelled.
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
    /// Whether the playback starts again at the end (the last message
    /// before ``to``) from ``from``, with the latched messages it begins
    /// with, until the task is cancelled. The channels stay advertised and
    /// subscribed; the messages keep their recorded times, and with a server
    /// that sends time the clock goes back to the start (Foxglove takes it
    /// as a seek). A pass lasts at least ``shortestPass``; unpaced, the next
    /// pass waits for a client and until the clients took the last one.
    public var loops: Bool

    /// The shortest a pass of a looping playback lasts (a recording of one
    /// instant does not loop in a busy spin).
    public static let shortestPass: Duration = .milliseconds(100)
    /// How far the playback's clock moves on before a new `time` message is
    /// sent: a client's clock is at most this much behind a message's time.
    public static let clockStep: UInt64 = 1_000_000

    /// A player of the recording in `directory`, between `from` and `to` in
    /// `time`; with `latched`, beginning with each latched topic's last message before `from`;
    /// with `loops`, starting again at the end.
    public init(
        directory: String, from: UInt64? = nil, to: UInt64? = nil, time: MessageTime = .sample, latched: Bool = false,
        loops: Bool = false
    ) {
        self.directory = directory
        self.from = from
        self.to = to
        self.time = time
        self.latched = latched
        self.loops = loops
    }

    /// Advertises the recording's streams on `server` and plays its messages,
    /// at `rate` times real time (`nil`: as fast as possible), until the end
    /// (with ``loops``, again and again) or until the task is cancelled.
    ///
    /// A server that sends time gets the playback's clock: before anything,
    /// the start (``from``, not before the recording's first message); then
    /// before a message whenever its time is more than ``clockStep`` past the
    /// last one sent (latched messages from before the start count as the
    /// start), so the clock is never ahead of a message and at most
    /// ``clockStep`` behind; and the start again at each new pass.
    ///
    /// - Parameters:
    ///   - server: Where to play.
    ///   - rate: A multiple of real time within `ReplayRate.range`; `nil` for no pacing.
    ///   - waitingForSubscriber: Start playing only once a client subscribed to a channel.
    /// - Returns: The messages played (in every pass).
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
            let stamped = time == .sample ? try reader.sampleTimeTopics() : []
            let context = try reader.exportContext(topics: Array(channelOfTopic.keys).sorted())
            // The clock's start: `from`, never before the recording's first message.
            let origin = server.sendsTime ? max(from ?? 0, try reader.timeSpan(time: time)?.first ?? 0) : nil
            var clock = origin
            if let origin { server.publish(time: origin) }
            while waitingForSubscriber, server.subscriptionCount == 0, !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(10))
            }
            let wall = ContinuousClock()
            var played = 0
            while !Task.isCancelled {
                let began = wall.now
                let pass = try await playPass(
                    RecordingSource(reader), topics: context.topics, channels: channelOfTopic, stamped: stamped,
                    to: server, rate: rate, clock: &clock)
                played += pass
                // Nothing to loop over: a pass with no message ends it.
                guard loops, pass > 0 else { break }
                do {
                    if rate == nil {
                        // Unpaced, a pass is read as fast as the disk allows: the next one waits
                        // for someone to send it to and for the clients to take this one (a
                        // client that reads nothing holds it at most 2 s), so the event loop
                        // gets its turn and no pass piles onto one still being sent.
                        while server.clientCount == 0 { try await Task.sleep(for: .milliseconds(10)) }
                        await server.drain(timeout: .seconds(2))
                    }
                    try await wall.sleep(until: began + Self.shortestPass)
                } catch {
                    break
                }
                if let origin {
                    clock = origin
                    server.publish(time: origin)
                }
            }
            return played
        } catch {
            throw LiveViewError(.recording, "cannot play \(directory): \(error.message)")
        }
    }

    /// One pass over the messages between ``from`` and ``to``, paced from its
    /// first message at or after ``from``; `clock` (`nil`: the server sends
    /// no time) is the last time sent. Returns the messages played.
    private func playPass(
        _ source: RecordingSource, topics: [ExportTopic], channels channelOfTopic: [String: UInt16],
        stamped: Set<String>, to server: LiveViewServer, rate: Double?, clock: inout UInt64?
    ) async throws(RecordingError) -> Int {
        let messages = try source.messageCursor(topics: topics, from: from, to: to, time: time, latched: latched)
        let wall = ContinuousClock()
        let start = wall.now
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
                if start + offset > wall.now {
                    do { try await wall.sleep(until: start + offset) } catch { break }
                }
            }
            // The clock never runs ahead of a message, and is never before the start.
            if let last = clock, instant > last, instant - last > Self.clockStep {
                clock = instant
                server.publish(time: instant)
            }
            message.payload.withUnsafeBytes { payload in
                server.publish(channelID: channelID, logTime: instant, payload: payload)
            }
            played += 1
        }
        return played
    }
}
