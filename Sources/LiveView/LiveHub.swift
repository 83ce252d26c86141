import ByteCursor
import Locking
import NIOCore

/// What the server knows: the advertised channels and the connected
/// clients. Shared by the recording's task (advertise, publish) and the
/// connections' event loop (connect, subscribe, disconnect).
final class LiveHub: Sendable {
    private struct State {
        var channels: [UInt16: LiveChannel] = [:]
        var order: [UInt16] = []
        var clients: [LiveClient] = []
        var dropped = 0
        var subscriptions = 0
        /// The latched channels' last messages handed to the clients (log time, payload).
        var latest: [UInt16: (logTime: UInt64, payload: [UInt8])] = [:]
        /// Whether any advertised channel is latched (the batches are scanned only then).
        var hasLatched = false
        /// The playback's clock as the clients got it so far (with ``sendsTime``): a new client gets it first.
        var clock: UInt64?
    }

    let name: String
    let sessionID: String
    let capacity: Int
    /// Whether the server declares the `time` capability and sends a playback's clock.
    let sendsTime: Bool
    let onEvent: (@Sendable (String) -> Void)?
    private let state = Locked(State())
    /// Where the recording thread leaves messages; the event loop takes them in batches.
    private let outbox: LiveOutbox
    /// The loop that turns the outbox's batches into frames.
    private let eventLoop: any EventLoop
    /// How long a message may wait in the outbox: the recording thread wakes
    /// the event loop at most once per interval.
    static let batchInterval = TimeAmount.milliseconds(2)

    init(
        name: String, sessionID: String, capacity: Int, sendsTime: Bool = false, eventLoop: any EventLoop,
        onEvent: (@Sendable (String) -> Void)?
    ) {
        self.name = name
        self.sessionID = sessionID
        self.capacity = capacity
        self.sendsTime = sendsTime
        self.eventLoop = eventLoop
        self.onEvent = onEvent
        // A batch interval's worth of a fast recording, and at least every client's queue.
        // Woken early when four clients' queues' worth wait: a client takes
        // such a batch in pieces of its queue's size (each written at once;
        // on a local socket the queue is empty again for the next), and a
        // fast recording wakes the loop once per four queues, not once per
        // queue (each wake is a syscall and a context switch on the
        // recording thread's side).
        outbox = LiveOutbox(capacity: max(1 << 16, capacity * 16), wakeCount: max(64, capacity * 4))
    }

    var channels: [LiveChannel] { state.withLock { state in state.order.compactMap { state.channels[$0] } } }
    var clientCount: Int { state.withLock { $0.clients.count } }
    /// Messages dropped for every client, connected or gone.
    var dropped: Int {
        state.withLock { state in state.dropped + state.clients.reduce(0) { $0 + $1.drops.values.reduce(0, +) } }
    }
    /// Subscriptions made since the start (a subscribe of several counts each).
    var subscriptionCount: Int { state.withLock { $0.subscriptions } }

    /// Adds a channel (a channel of a known id is replaced) and advertises it to every client.
    func advertise(_ channel: LiveChannel) {
        state.withLock { state in
            if state.channels.updateValue(channel, forKey: channel.id) == nil { state.order.append(channel.id) }
            if !channel.isLatched { state.latest[channel.id] = nil }
            outbox.setLatched(channel.isLatched, channelID: channel.id)
            state.hasLatched = state.channels.values.contains(where: \.isLatched)
            let text = FoxgloveProtocol.advertise([channel])
            for client in state.clients { client.send(text: text) }
        }
    }

    /// Hands a message to every client that subscribes to its channel: the
    /// caller (the recording thread) only copies it into the outbox; frames
    /// are made and sent on the event loop, a batch per ``batchInterval``.
    func publish(channelID: UInt16, logTime: UInt64, payload: UnsafeRawBufferPointer) {
        schedule(outbox.append(channelID: channelID, logTime: logTime, payload: payload))
    }

    /// Hands a playback's clock to every client, as a `time` message in its
    /// place among the messages (only with ``sendsTime``).
    func publish(time: UInt64) {
        guard sendsTime else { return }
        schedule(outbox.appendTime(time))
    }

    /// Takes a batch when the outbox asks for one.
    private func schedule(_ wake: LiveOutbox.Wake) {
        switch wake {
        case .none: break
        case .later:
            eventLoop.scheduleTask(in: Self.batchInterval) {
                self.outbox.timerFired()
                self.flush()
            }
        case .now: eventLoop.execute { self.flush() }
        }
    }

    /// On the event loop: the outbox's messages to every client.
    private func flush() {
        let batch = outbox.take()
        guard batch.count > 0 || !batch.dropped.isEmpty || batch.time != nil else {
            outbox.recycle(batch)
            return
        }
        let clients = state.withLock { state in
            if state.hasLatched { Self.keepLatest(of: batch, in: &state) }
            if let time = batch.time { state.clock = time }
            return state.clients
        }
        for client in clients { client.send(batch) }
        outbox.recycle(consume batch)
    }

    /// Keeps each latched channel's last message of `batch`: what a client
    /// that subscribes later gets first. On the event loop, as subscribing
    /// is, so a subscriber gets it once, then the channel's later batches.
    private static func keepLatest(of batch: borrowing LiveOutbox.Batch, in state: inout State) {
        batch.withRecords { records in
            var cursor = ByteCursor(records, offset: 0)
            while let channelID = try? cursor.read(UInt16.self), let logTime = try? cursor.read(UInt64.self),
                let length = try? cursor.read(UInt32.self)
            {
                // A clock tick has no payload.
                if length == LiveOutbox.timeRecordLength { continue }
                guard let payload = try? cursor.readRange(length) else { return }
                guard state.channels[channelID]?.isLatched == true else { continue }
                state.latest[channelID] = (logTime, Array(UnsafeRawBufferPointer(rebasing: records[payload])))
            }
        }
    }

    /// A new client: it gets the server's info, the playback's clock (with
    /// ``sendsTime``, once there is one) and every channel so far.
    func connect(_ client: LiveClient) {
        state.withLock { state in
            state.clients.append(client)
            outbox.listening = true
            // What latched channels published while no client listened (older than any batch to come).
            state.latest.merge(outbox.takeParked()) { _, parked in parked }
            if let parked = outbox.takeParkedTime() { state.clock = parked }
            client.send(
                text: FoxgloveProtocol.serverInfo(
                    name: name, capabilities: sendsTime ? [FoxgloveProtocol.timeCapability] : [], metadata: [:],
                    sessionID: sessionID))
            // Before the channels: Foxglove starts its timeline at the clock it has when they arrive.
            if sendsTime, let clock = state.clock { client.send(time: clock) }
            client.send(text: FoxgloveProtocol.advertise(state.order.compactMap { state.channels[$0] }))
        }
        onEvent?("\(client.name) connected")
    }

    /// A client went away: its drops are logged and kept in the total.
    func disconnect(_ client: LiveClient) {
        client.close()
        let drops = client.drops
        let topics = state.withLock { state -> [UInt16: String] in
            guard state.clients.contains(where: { $0 === client }) else { return [:] }
            state.clients.removeAll { $0 === client }
            if state.clients.isEmpty { outbox.listening = false }
            state.dropped += drops.values.reduce(0, +)
            return state.channels.mapValues(\.topic)
        }
        let total = drops.values.reduce(0, +)
        // The five channels that missed most, then how many more.
        let ranked = drops.sorted { ($0.value, $1.key) > ($1.value, $0.key) }
        var detail = ranked.prefix(5).map { "\(topics[$0.key] ?? "channel \($0.key)"): \($0.value)" }
        if ranked.count > 5 { detail.append("\(ranked.count - 5) more topic(s)") }
        onEvent?(
            "\(client.name) disconnected; dropped \(total) message(s)"
                + (detail.isEmpty ? "" : " (" + detail.joined(separator: ", ") + ")"))
    }

    /// A client's text message: subscribe and unsubscribe are done; anything
    /// else gets an error status.
    func handle(_ text: String, from client: LiveClient) {
        let message: FoxgloveProtocol.ClientMessage
        do {
            message = try FoxgloveProtocol.parse(text)
        } catch {
            client.send(text: FoxgloveProtocol.status(.error, "not a JSON object with an op: \(text.prefix(80))"))
            return
        }
        // One status per kind of problem and message, however many items it names: a
        // client's message never makes more than a few replies (a 1 MiB unsubscribe of
        // unknown ids made 100,000).
        var unknownChannels: [String] = []
        var idsInUse: [String] = []
        var channelsSubscribed: [String] = []
        switch message.op {
        case "subscribe":
            for subscription in message.subscriptions ?? [] {
                let known = state.withLock { state in
                    UInt16(exactly: subscription.channelId).flatMap { state.channels[$0] } != nil
                }
                guard known, let channel = UInt16(exactly: subscription.channelId) else {
                    unknownChannels.append(String(subscription.channelId))
                    continue
                }
                do {
                    try client.subscribe(id: subscription.id, channel: channel)
                    let latest = state.withLock { state in
                        state.subscriptions += 1
                        return state.latest[channel]
                    }
                    if let latest { client.send(latched: channel, logTime: latest.logTime, payload: latest.payload) }
                } catch {
                    switch error {
                    case .idInUse(let id): idsInUse.append(String(id))
                    case .channelSubscribed(let channel): channelsSubscribed.append(String(channel))
                    }
                }
            }
            if !unknownChannels.isEmpty {
                client.send(
                    text: FoxgloveProtocol.status(
                        .error, "subscribe: no channel \(Self.listed(unknownChannels)) is advertised"))
            }
            if !idsInUse.isEmpty {
                client.send(
                    text: FoxgloveProtocol.status(
                        .error, "subscribe: subscription id \(Self.listed(idsInUse)) is in use"))
            }
            if !channelsSubscribed.isEmpty {
                client.send(
                    text: FoxgloveProtocol.status(
                        .error, "subscribe: channel \(Self.listed(channelsSubscribed)) is already subscribed"))
            }
        case "unsubscribe":
            let unknown = (message.subscriptionIds ?? []).filter { !client.unsubscribe(id: $0) }.map { String($0) }
            if !unknown.isEmpty {
                client.send(
                    text: FoxgloveProtocol.status(.warning, "unsubscribe: no subscription \(Self.listed(unknown))"))
            }
        default:
            client.send(
                text: FoxgloveProtocol.status(
                    .error, "\(message.op.prefix(80)) is not supported (this server only streams)"))
        }
    }

    /// Items named in one status: the first ten, then how many in all.
    static func listed(_ items: [String]) -> String {
        items.count <= 10
            ? items.joined(separator: ", ") : items.prefix(10).joined(separator: ", ") + " … (\(items.count) in all)"
    }

    /// Messages queued for or being written to every client.
    var pending: Int { outbox.count + state.withLock { $0.clients }.reduce(0) { $0 + $1.pending } }

    /// Every connected client (to close them).
    func connectedClients() -> [LiveClient] {
        state.withLock { $0.clients }
    }
}
