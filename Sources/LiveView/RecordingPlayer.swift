import MCAP
import Recording

/// Plays a finished recording to a ``LiveViewServer`` at a pace, so a
/// session can be watched in Foxglove after the fact: every stream is
/// advertised with the schema of its segments, then the messages go out in
/// log-time order with their log times.
///
/// ```swift
/// let server = try await LiveViewServer.start(at: LiveViewAddress(port: 8765))
/// let played = try await RecordingPlayer(directory: "ride").play(to: server, rate: 10)
/// ```
public struct RecordingPlayer: Sendable {
    /// The recording directory.
    public var directory: String
    /// Earliest log time played (inclusive); `nil` for the start.
    public var from: UInt64?
    /// Latest log time played (exclusive); `nil` for the end.
    public var to: UInt64?

    /// A player of the recording in `directory`, between `from` and `to`.
    public init(directory: String, from: UInt64? = nil, to: UInt64? = nil) {
        self.directory = directory
        self.from = from
        self.to = to
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
            for (topic, (schema, channel)) in definitions.sorted(by: { $0.value.1.id < $1.value.1.id }) {
                channelOfTopic[topic] = channel.id
                server.advertise(
                    LiveChannel(
                        id: channel.id, topic: topic, schemaName: schema.name,
                        schema: String(decoding: schema.data, as: UTF8.self), encoding: channel.messageEncoding,
                        schemaEncoding: schema.encoding))
            }
            while waitingForSubscriber, server.subscriptionCount == 0, !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(10))
            }
            let messages = try reader.messageIterator(topics: Array(channelOfTopic.keys), from: from, to: to)
            let clock = ContinuousClock()
            let start = clock.now
            var first: UInt64?
            var played = 0
            while let message = try messages.next() {
                if Task.isCancelled { break }
                guard let channelID = channelOfTopic[message.topic] else { continue }
                if let rate {
                    let origin = first ?? message.logTime
                    first = origin
                    let offset = ReplayRate.offset(
                        ofNanoseconds: message.logTime - min(message.logTime, origin), rate: rate)
                    if start + offset > clock.now {
                        do { try await clock.sleep(until: start + offset) } catch { break }
                    }
                }
                message.payload.withUnsafeBytes { payload in
                    server.publish(channelID: channelID, logTime: message.logTime, payload: payload)
                }
                played += 1
            }
            return played
        } catch {
            throw LiveViewError(.recording, "cannot play \(directory): \(error.message)")
        }
    }
}
