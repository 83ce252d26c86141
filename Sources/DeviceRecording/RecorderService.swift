public import Devices
public import Recording
import Streams
import Synchronization

/// Runs a `Recorder` as a long-lived service: producers on any thread hand
/// it notifications through a bounded ingest buffer; one consumer task
/// decodes and records them, closes chunks that grow old on a timer, and
/// writes down everything the buffer had to drop. When the input finishes —
/// or the task running the service is cancelled — it closes the open chunk
/// and segment and commits the index, so the recording is always complete.
///
/// The buffer never grows without bound: when it is full, new notifications
/// are dropped (``send(_:device:)`` returns `false`) and the drop is recorded
/// as loss with its count and reason.
///
/// ```swift
/// let service = RecorderService(capacity: 65_536)
/// let task = Task {
///     try await service.run {
///         let recorder = try Recorder(directory: "ride", session: .init(name: "ride", source: "live"))
///         return (recorder, [try DeviceStreamRecorder(recorder: recorder, decoder: DiotDecoder(),
///                                                     identifier: "9F3A0C11", name: "DIoT-9F3A")])
///     }
/// }
/// service.send(notification, device: 0)   // from a BLE callback, any thread
/// task.cancel()                           // or service.finish()
/// ```
public final class RecorderService: Sendable {
    /// What flows through the ingest buffer.
    public enum Input: Sendable {
        /// A notification for the device at this index of `run`'s `devices`.
        case notification(device: Int, RawNotification)
        /// A timer tick: close chunks that are older than the chunk age.
        case tick(UInt64)
        /// Data of the device at this index was lost at `time`: `count`
        /// elements, or a gap of `duration` (a disconnect, a Bluetooth daemon
        /// restart), or both.
        case loss(device: Int, time: UInt64, count: Int, duration: Duration?, reason: String)
    }

    private let ingest: PassthroughSubject<Input, Never>
    private let subscription: SubjectSubscription<Input, Never>
    /// The buffer's capacity.
    public let capacity: Int
    /// Notifications and losses sent and not yet consumed (what the
    /// waiting ``send(waitingFor:device:)`` looks at; ticks are not counted).
    private let inFlight = Atomic<Int>(0)
    /// While notifications come less than this apart, the recording task
    /// wakes at most once per interval, sooner only when a small buffer
    /// would fill (see ``init(capacity:minimumWakeInterval:)``).
    public let minimumWakeInterval: Duration
    /// How often the recording task found the buffer empty and so waited,
    /// either for the next notification or for a while: the number of its
    /// wake-ups, give or take one.
    package var idleWaits: Int { idleWaitCount.load(ordering: .relaxed) }
    private let idleWaitCount = Atomic<Int>(0)

    /// Creates a service with an ingest buffer of `capacity` notifications.
    ///
    /// The recording task waits whenever it has recorded everything sent
    /// so far. Woken for each notification, it would cost a thread wake-up
    /// (a context switch) per notification: on a live stream of tens of
    /// thousands a second, more than decoding and recording them. So while
    /// notifications come less than `minimumWakeInterval` apart, it sleeps
    /// that long when the buffer runs empty and then records everything that
    /// gathered meanwhile: at most one wake-up per interval, at the cost of
    /// up to one interval between a notification's arrival and its recording.
    /// It sleeps less when, at the rate notifications came since the buffer
    /// last ran empty, an interval's worth would fill more than half the
    /// buffer (a small buffer); what the buffer cannot hold is dropped and
    /// recorded as loss, as always. When notifications come further apart,
    /// it waits for each one and records it at once.
    ///
    /// - Parameters:
    ///   - capacity: Notifications the buffer holds before it drops.
    ///   - minimumWakeInterval: How long the recording task lets a busy input
    ///     gather before it records it; `.zero` wakes it for every notification.
    public init(capacity: Int = 65_536, minimumWakeInterval: Duration = .milliseconds(1)) {
        self.capacity = capacity
        self.minimumWakeInterval = max(.zero, minimumWakeInterval)
        self.ingest = PassthroughSubject(bufferingPolicy: .bufferingOldest(capacity))
        // Subscribe now, so nothing sent before `run` starts is missed.
        self.subscription = ingest.subscribe()
    }

    /// Hands a notification to the service, from any thread. Returns `false`
    /// when it was dropped (buffer full, or the service has finished).
    @discardableResult
    public func send(_ notification: RawNotification, device: Int) -> Bool {
        inFlight.add(1, ordering: .relaxed)
        if case .enqueued = ingest.send(.notification(device: device, notification)) { return true }
        inFlight.subtract(1, ordering: .relaxed)
        return false
    }

    /// Hands a notification to the service, waiting while the buffer is
    /// nearly full instead of dropping it: back-pressure for sources that can
    /// wait, such as a capture file read as fast as the disk allows. Returns
    /// `false` when the service has finished or the task was cancelled
    /// (nothing sent).
    ///
    /// - Parameters:
    ///   - notification: The notification.
    ///   - device: The device's index in `run`'s `devices`.
    @discardableResult
    public func send(waitingFor notification: RawNotification, device: Int) async -> Bool {
        guard await waitForRoom() else { return false }
        return send(notification, device: device)
    }

    /// Records a loss as ``recordLoss(device:time:count:duration:reason:)``
    /// does, waiting while the buffer is nearly full.
    @discardableResult
    public func recordLoss(
        waiting device: Int, time: UInt64, count: Int = 0, duration: Duration? = nil,
        reason: String
    ) async -> Bool {
        guard await waitForRoom() else { return false }
        return recordLoss(device: device, time: time, count: count, duration: duration, reason: reason)
    }

    /// Waits until the buffer has room, keeping a reserve for ticks and
    /// other producers; `false` when the service finished or the task was cancelled.
    private func waitForRoom() async -> Bool {
        let limit = max(1, capacity - max(16, capacity / 8))
        while inFlight.load(ordering: .relaxed) >= limit {
            if Task.isCancelled || ingest.isTerminated { return false }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return !Task.isCancelled && !ingest.isTerminated
    }

    /// Records lost data of a device — a gap while it was disconnected or
    /// the Bluetooth daemon restarted (with its `duration`), or `count`
    /// notifications dropped before they reached the service — as a loss
    /// record, in order with the notifications sent before and after it.
    /// The reason is prefixed with the device's family and identifier.
    ///
    /// ```swift
    /// service.recordLoss(device: 0, time: disconnectedAt, duration: .milliseconds(850),
    ///                    reason: "disconnected: le-connection-abort-by-local")
    /// ```
    ///
    /// - Parameters:
    ///   - device: The device's index in `run`'s `devices`.
    ///   - time: When the loss began (nanoseconds since the Unix epoch).
    ///   - count: Elements known to be lost (0 for a gap of unknown content).
    ///   - duration: How long the gap lasted, if it is one.
    ///   - reason: Why, for example `"disconnected: le-connection-abort-by-local"`.
    /// - Returns: `false` when the service has finished (nothing recorded).
    @discardableResult
    public func recordLoss(
        device: Int, time: UInt64, count: Int = 0, duration: Duration? = nil,
        reason: String
    ) -> Bool {
        let input = Input.loss(device: device, time: time, count: count, duration: duration, reason: reason)
        inFlight.add(1, ordering: .relaxed)
        if case .enqueued = ingest.send(input) {
            return true
        }
        inFlight.subtract(1, ordering: .relaxed)
        return false
    }

    /// Notifications dropped so far because the buffer was full.
    public var droppedCount: Int { ingest.droppedCount }

    /// Ends the input: `run` records what is buffered, closes the recording and returns.
    public func finish() { ingest.finish() }

    /// Consumes the input until ``finish()`` or cancellation, then closes the recorder.
    ///
    /// Cancellation ends the input like ``finish()``: what is already in the
    /// buffer is still recorded (telemetry that was received is not thrown
    /// away), then the recording is closed.
    ///
    /// - Parameters:
    ///   - tick: How often quiet chunks are checked for age.
    ///   - makeRecording: Creates the recorder and the device recorders
    ///     `send` refers to by index. It runs on the service's own task, which
    ///     owns them from then on (recorders are not `Sendable`).
    /// - Throws: `RecordingError` from creating or writing the recording;
    ///   the recording is closed first.
    public func run(
        tick: Duration = .milliseconds(200),
        _ makeRecording:
            @escaping @Sendable () throws(RecordingError) -> (recorder: Recorder, devices: [any DeviceRecorder])
    ) async throws(RecordingError) {
        try await run(
            tick: tick,
            setUp: { () throws(RecordingError) in
                let (recorder, devices) = try makeRecording()
                return RecordingSetup(recorder: recorder, devices: devices)
            })
    }

    /// Records the input, as ``run(tick:_:)`` does, with what `setUp` makes on
    /// the recording task: the recorder, the device recorders, and a hook
    /// called there once the input has ended (``finish()``, or cancellation),
    /// before the recorder closes — where a pipeline engine finishes its
    /// derived streams.
    ///
    /// - Parameters:
    ///   - tick: How often open chunks are checked for their age and drops counted.
    ///   - setUp: Makes the recording, on the recording task.
    /// - Throws: `RecordingError` from `setUp`, a device recorder, the hook or the recorder.
    public func run(
        tick: Duration = .milliseconds(200),
        setUp: @escaping @Sendable () throws(RecordingError) -> RecordingSetup
    ) async throws(RecordingError) {
        let ingest = self.ingest
        let subscription = self.subscription
        let capacity = self.capacity
        let wakeInterval = self.minimumWakeInterval
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: tick)
                _ = ingest.send(.tick(Recorder.now()))
            }
        }
        // The consumer is an unstructured task, so cancelling the caller does
        // not cut its iteration short: the handler below ends the input instead.
        let consumer = Task { () -> Result<Void, RecordingError> in
            let setup: RecordingSetup
            do throws(RecordingError) {
                setup = try setUp()
            } catch {
                return .failure(error)
            }
            let recorder = setup.recorder
            let devices = setup.devices
            var reported = 0
            func recordDrops(at time: UInt64) throws(RecordingError) {
                let dropped = ingest.droppedCount
                if dropped > reported {
                    try recorder.recordLoss(
                        stream: nil, time: time, count: dropped - reported,
                        reason: "ingest buffer full (\(capacity) notifications)")
                    reported = dropped
                }
            }
            var idle = IdleWaitPolicy(interval: wakeInterval, capacity: capacity, start: ContinuousClock.now)
            do throws(RecordingError) {
                for await input in subscription {
                    if case .tick = input {} else { self.inFlight.subtract(1, ordering: .relaxed) }
                    switch input {
                    case .notification(let device, let notification):
                        if devices.indices.contains(device) {
                            try devices[device].record(notification)
                        } else {
                            try recorder.recordLoss(
                                stream: nil, time: notification.receiveTime, count: 1,
                                reason: "notification for unknown device \(device)")
                        }
                    case .loss(let device, let time, let count, let duration, let reason):
                        let name =
                            devices.indices.contains(device)
                            ? "\(devices[device].device.family.rawValue) \(devices[device].device.identifier)"
                            : "device \(device)"
                        try recorder.recordLoss(
                            stream: nil, time: time, count: count, reason: "\(name): \(reason)",
                            duration: duration)
                    case .tick(let now):
                        try recorder.closeChunkIfDue(now: now)
                        try recordDrops(at: now)
                        try setup.onTick?(now)
                    }
                    idle.recorded()
                    if self.inFlight.load(ordering: .relaxed) == 0 {
                        // Everything sent so far is recorded: the next `next()` would
                        // wait. A busy input gathers for an interval instead.
                        self.idleWaitCount.add(1, ordering: .relaxed)
                        if let sleep = idle.bufferRanEmpty(at: ContinuousClock.now) {
                            try? await Task.sleep(for: sleep)
                        }
                    }
                }
                try setup.onInputEnd?()
                try recordDrops(at: Recorder.now())
                try recorder.close()
                return .success(())
            } catch {
                try? recorder.close()
                return .failure(error)
            }
        }
        defer { ticker.cancel() }
        let result = await withTaskCancellationHandler {
            await consumer.value
        } onCancel: {
            ingest.finish()
        }
        try result.get()
    }
}
