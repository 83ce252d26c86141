import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
public import Recording

/// Serves streams over the Foxglove WebSocket protocol
/// (`foxglove.websocket.v1`), so Foxglove or Lichtblick plot them as they
/// are recorded: channels are advertised as they appear, with their
/// `ros2msg` schemas and CDR encoding; clients subscribe and unsubscribe;
/// each message goes to its subscribers with its log time.
///
/// Set it as a `Recorder`'s observer (it is a
/// `RecorderObserver`) or call ``advertise(_:)`` and
/// ``publish(channelID:logTime:payload:)`` yourself. Publishing never
/// waits for a client, and costs the caller one copy of the message: the
/// server's event loop makes the frames, in batches every 2 ms. Each client has a bounded queue
/// (``Options/queueCapacity`` messages); what does not fit is dropped and
/// counted per channel, the client is told with a warning status, and the
/// counts are reported when it disconnects. The server's one thread runs at
/// a lower CPU priority (nice +10): when the recording keeps every core
/// busy, the recording gets the CPU first and the live view what is left.
///
/// ```swift
/// let server = try await LiveViewServer.start(at: LiveViewAddress(port: 8765))
/// recorder.observer = server
/// // ... record ...
/// await server.close()
/// ```
public final class LiveViewServer: RecorderObserver, Sendable {
    /// How a server serves.
    public struct Options: Sendable {
        /// At most this many messages queued or being written per client; beyond, messages are dropped.
        public var queueCapacity: Int
        /// The server's name in its `serverInfo`.
        public var name: String
        /// Called with one line when a client connects or disconnects (with its drop counts).
        public var onEvent: (@Sendable (String) -> Void)?
        /// The time a recorded message is sent with as its timestamp (as a recorder's observer):
        /// its sample time (`publish_time`, the default) or its receive time (`log_time`).
        public var time: MessageTime
        /// Whether the server declares the Foxglove `time` capability and
        /// sends a playback's clock as `time` messages
        /// (``LiveViewServer/publish(time:)``), so Foxglove's timeline follows
        /// the playback: for a recording played back (``RecordingPlayer``),
        /// not for live data, whose clients keep their own receive time.
        public var sendsTime: Bool

        /// Creates options.
        public init(
            queueCapacity: Int = 1_024, name: String = "tlm", onEvent: (@Sendable (String) -> Void)? = nil,
            time: MessageTime = .sample, sendsTime: Bool = false
        ) {
            self.queueCapacity = queueCapacity
            self.name = name
            self.onEvent = onEvent
            self.time = time
            self.sendsTime = sendsTime
        }
    }

    /// The address bound: the port is the one chosen when 0 was asked for.
    public let address: LiveViewAddress
    private let hub: LiveHub
    /// The time recorded messages are sent with (``Options/time``).
    private let time: MessageTime
    private let group: MultiThreadedEventLoopGroup
    private let listener: any Channel

    private init(
        address: LiveViewAddress, hub: LiveHub, group: MultiThreadedEventLoopGroup, listener: any Channel,
        time: MessageTime
    ) {
        self.address = address
        self.hub = hub
        self.time = time
        self.group = group
        self.listener = listener
    }

    /// Starts serving at `address` (port 0 for a free one; see ``address``).
    ///
    /// - Throws: ``LiveViewError`` (`.bind`) when the address cannot be bound.
    public static func start(
        at address: LiveViewAddress, options: Options = Options()
    ) async throws(LiveViewError)
        -> LiveViewServer
    {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        // The recording comes first: the server's thread runs at nice +10 (on
        // Linux a thread's own priority), so on a machine whose cores the
        // recording keeps busy the live view gets what is left and its clients
        // get drops (counted), instead of the recording slowing down. On an
        // idle core it changes nothing. Best effort: a failure leaves it at 0.
        group.next().execute { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10) }
        let hub = LiveHub(
            name: options.name, sessionID: String(Recorder.now()), capacity: options.queueCapacity,
            sendsTime: options.sendsTime, eventLoop: group.next(), onEvent: options.onEvent)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 64)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try Self.configure(channel, hub: hub)
                }
            }
        do {
            let listener = try await bootstrap.bind(host: address.host, port: address.port).get()
            let port = listener.localAddress?.port ?? address.port
            return LiveViewServer(
                address: LiveViewAddress(host: address.host, port: port), hub: hub, group: group, listener: listener,
                time: options.time)
        } catch {
            try? await group.shutdownGracefully()
            throw LiveViewError(.bind, "cannot serve the live view at \(address): \(error)")
        }
    }

    /// A connection's pipeline: HTTP until the WebSocket upgrade (only with
    /// the `foxglove.websocket.v1` subprotocol), then Foxglove frames.
    private static func configure(_ channel: any Channel, hub: LiveHub) throws {
        let upgrader = NIOWebSocketServerUpgrader(
            maxFrameSize: 1 << 20,
            shouldUpgrade: { channel, head in
                let offered = head.headers["Sec-WebSocket-Protocol"]
                    .flatMap { $0.split(separator: ",") }
                    .map { $0.trimmingCharacters(in: .whitespaces) }
                guard offered.contains(FoxgloveProtocol.subprotocol) else {
                    return channel.eventLoop.makeSucceededFuture(nil)
                }
                return channel.eventLoop.makeSucceededFuture(
                    HTTPHeaders([("Sec-WebSocket-Protocol", FoxgloveProtocol.subprotocol)]))
            },
            upgradePipelineHandler: { channel, _ in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    try sync.addHandler(
                        NIOWebSocketFrameAggregator(
                            minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 64,
                            maxAccumulatedFrameSize: 1 << 20))
                    try sync.addHandler(RawFrameWriter(), position: .first)
                    try sync.addHandler(FoxgloveHandler(hub: hub))
                }
            })
        try channel.pipeline.syncOperations.configureHTTPServerPipeline(
            withServerUpgrade: (
                upgraders: [upgrader],
                completionHandler: { context in
                    context.pipeline.removeHandler(name: PlainHTTPHandler.name, promise: nil)
                }
            ))
        try channel.pipeline.syncOperations.addHandler(PlainHTTPHandler(), name: PlainHTTPHandler.name)
    }

    /// The channels advertised so far, in the order they appeared.
    public var channels: [LiveChannel] { hub.channels }

    /// The clients connected now.
    public var clientCount: Int { hub.clientCount }

    /// Subscriptions clients made since the start.
    public var subscriptionCount: Int { hub.subscriptionCount }

    /// Messages dropped because a client was slower than the streams, all clients together.
    public var droppedCount: Int { hub.dropped }

    /// Advertises a channel to every client, now and on connection.
    public func advertise(_ channel: LiveChannel) { hub.advertise(channel) }

    /// Sends a message to the clients subscribed to `channelID`; never waits.
    public func publish(channelID: UInt16, logTime: UInt64, payload: UnsafeRawBufferPointer) {
        hub.publish(channelID: channelID, logTime: logTime, payload: payload)
    }

    /// Whether the server declares the `time` capability (``Options/sendsTime``).
    public var sendsTime: Bool { hub.sendsTime }

    /// Sends the playback's clock, `time` nanoseconds in the time its
    /// messages are stamped with, to every client as a `time` message, in
    /// order with the messages published around it; a client that connects
    /// later gets the last one first. Foxglove stamps each message it
    /// receives with the last time it got, and takes a time earlier than the
    /// last as a seek. Only with ``Options/sendsTime`` (the protocol allows
    /// time messages only from a server that declares the capability);
    /// otherwise nothing is sent. Never waits.
    public func publish(time: UInt64) { hub.publish(time: time) }

    /// Waits until every client took what is queued for it, at most `timeout`
    /// (a client that reads nothing does not hold the caller longer).
    public func drain(timeout: Duration) async {
        let deadline = ContinuousClock.now + timeout
        while hub.pending > 0, ContinuousClock.now < deadline {
            do { try await Task.sleep(for: .milliseconds(10)) } catch { return }
        }
    }

    /// Stops serving: every client gets a WebSocket Close frame (status 1000,
    /// `reason`) after what was queued for it and is then disconnected (its
    /// drops reported), and the port is released. Clients see a normal
    /// closure, not an abnormal one (1006).
    ///
    /// - Parameter reason: The Close frame's reason (at most 123 bytes are sent).
    public func close(reason: String = "tlm stopped serving") async {
        for client in hub.connectedClients() {
            _ = try? await client.closing(reason: reason).get()
            _ = try? await client.channel.close()
        }
        _ = try? await listener.close()
        try? await group.shutdownGracefully()
    }

    // MARK: - RecorderObserver

    /// Advertises the new stream as a channel of its MCAP channel id.
    public func recorder(didAddStream descriptor: StreamDescriptor, channelID: UInt16) {
        advertise(
            LiveChannel(
                id: channelID, topic: descriptor.topic, schemaName: descriptor.schema.name,
                schema: descriptor.schema.text, encoding: descriptor.schema.messageEncoding,
                schemaEncoding: descriptor.schema.encoding, isLatched: descriptor.isLatched))
    }

    /// Publishes the written message with its log time.
    public func recorder(didWrite channelID: UInt16, logTime: UInt64, payload: UnsafeRawBufferPointer) {
        publish(channelID: channelID, logTime: logTime, payload: payload)
    }

    /// Publishes the written message with its time of ``Options/time``: its
    /// publish time (a typed stream's sample time; any other stream's is its
    /// log time) or its log time.
    public func recorder(
        didWrite channelID: UInt16, logTime: UInt64, publishTime: UInt64, payload: UnsafeRawBufferPointer
    ) {
        publish(channelID: channelID, logTime: time == .sample ? publishTime : logTime, payload: payload)
    }
}
