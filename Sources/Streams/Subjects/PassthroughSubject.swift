/// A push source that multicasts the elements you send to every consumer
/// subscribed at that moment.
///
/// Use it to bridge callback-based code (BLE notifications, D-Bus signals)
/// into publishers. `send(_:)`, `finish()` and `fail(_:)` may be called from
/// any thread or task.
///
/// ```swift
/// let notifications = PassthroughSubject<[UInt8], Never>(bufferingPolicy: .bufferingNewest(1024))
/// let packets = notifications.subscribe()          // subscribed now: nothing sent from here on is missed
/// let recorder = Task {
///     for await packet in packets.prefix(1000) { record(packet) }
/// }
/// device.onNotification = { bytes in notifications.send(bytes) }
/// // … later
/// notifications.finish()
/// print("lost \(notifications.droppedCount) notifications")
/// ```
///
/// **Consumers.** Each iterator is one consumer with its own buffer, and it
/// is subscribed as soon as it is *made*: ``makeAsyncIterator()`` and
/// ``subscribe()`` register the consumer before they return, so every
/// element sent afterwards reaches it. A `for await` loop makes its iterator
/// when the loop starts, so to avoid missing early elements from a task that
/// has not started yet, call ``subscribe()`` before starting the task and
/// iterate the subscription inside it.
///
/// **No consumer.** An element sent while nobody is subscribed goes nowhere,
/// as with Combine's `PassthroughSubject`; `send(_:)` returns
/// ``SubjectSendResult/noConsumers`` and ``droppedCount`` does not count it.
///
/// **Buffering.** An element sent to a consumer that is waiting in `next()`
/// is handed over directly. Otherwise it goes to that consumer's buffer,
/// which the ``SubjectBufferingPolicy`` bounds; what the policy drops is
/// counted in ``droppedCount``.
///
/// **Termination.** The subject ends once, with ``finish()`` or
/// ``fail(_:)``; later calls to either are ignored, and later sends are
/// ignored and return ``SubjectSendResult/terminated``. Each consumer first
/// receives the elements already in its buffer, then the end (`nil`) or the
/// error (thrown once, then `nil`). A consumer that subscribes after the end
/// receives the end or the error at once. Releasing the last reference to
/// the subject finishes it, so consumers never wait on a subject nobody can
/// send to any more.
///
/// **Cancellation.** Cancelling the consuming task ends that consumer at
/// once: its pending or next `next()` returns `nil` (it never throws
/// `CancellationError`, whatever `Failure` is, so a loop ends the same way
/// for every failure type), its buffer is discarded and it is unsubscribed.
/// Dropping an iterator unsubscribes it too.
public final class PassthroughSubject<Element: Sendable, Failure: Error>: Publisher, Sendable {
    /// The iterator type: one consumer of the subject.
    public typealias AsyncIterator = SubjectIterator<Element, Failure>

    let storage: SubjectStorage<Element, Failure>

    /// Creates a subject.
    ///
    /// - Parameter bufferingPolicy: How much each consumer's buffer holds
    ///   while the consumer is busy, and what is dropped beyond that.
    ///   Limits must not be negative. Defaults to ``SubjectBufferingPolicy/unbounded``.
    public init(bufferingPolicy: SubjectBufferingPolicy = .unbounded) {
        storage = SubjectStorage(policy: bufferingPolicy)
    }

    deinit {
        storage.terminate(.finished)
    }

    /// Sends an element to every consumer subscribed now.
    ///
    /// Safe to call from any thread or task. A consumer waiting in `next()`
    /// is resumed with the element; a busy one gets it in its buffer,
    /// subject to the buffering policy.
    ///
    /// - Parameter element: The element to send.
    /// - Returns: What happened to the element; see ``SubjectSendResult``.
    @discardableResult
    public func send(_ element: Element) -> SubjectSendResult {
        storage.send(element)
    }

    /// Finishes the subject: after draining its buffer, each consumer ends
    /// with `nil`.
    ///
    /// Does nothing if the subject already finished or failed.
    public func finish() {
        storage.terminate(.finished)
    }

    /// Fails the subject: after draining its buffer, each consumer's `next()`
    /// throws `error` once, then returns `nil`.
    ///
    /// Does nothing if the subject already finished or failed.
    ///
    /// - Parameter error: The error each consumer receives.
    public func fail(_ error: Failure) {
        storage.terminate(.failed(error))
    }

    /// The number of elements the buffering policy dropped so far, over all
    /// consumers (an element dropped by two consumers counts twice).
    ///
    /// Elements sent while no consumer was subscribed are not counted.
    /// Readable at any time, from any thread.
    public var droppedCount: Int {
        storage.droppedCount
    }

    /// The number of consumers subscribed now.
    ///
    /// A consumer is subscribed from when its iterator or subscription is
    /// made until it received the end, was cancelled or was dropped.
    public var consumerCount: Int {
        storage.consumerCount
    }

    /// Whether the subject finished or failed.
    public var isTerminated: Bool {
        storage.isTerminated
    }

    /// Waits until at least `count` consumers are suspended in `next()`,
    /// waiting for an element.
    ///
    /// Meant for tests: it tells a test that the pipeline under test has
    /// caught up and is waiting, without polling or counting
    /// `Task.yield()` calls. It is signalled each time a consumer suspends,
    /// returns at once if enough consumers are suspended already, and
    /// returns early if the waiting task is cancelled.
    ///
    /// ```swift
    /// let consumer = Task { await subject.prefix(1).first { _ in true } }
    /// await subject.waitForSuspendedConsumers(atLeast: 1)
    /// subject.send(42)   // handed straight to the waiting consumer
    /// ```
    ///
    /// - Parameter count: The number of suspended consumers to wait for.
    public func waitForSuspendedConsumers(atLeast count: Int) async {
        await storage.waitForSuspended(atLeast: count)
    }

    /// Subscribes a consumer now and returns it as a publisher.
    ///
    /// Every element sent after this call returns is buffered for the
    /// subscription (subject to the buffering policy) until it is iterated.
    /// The subscription is `Sendable`, so you can subscribe before starting
    /// the task that consumes it. Its first iterator receives the
    /// subscription's consumer; a later iterator subscribes afresh, as
    /// ``makeAsyncIterator()`` does. Releasing the subscription without
    /// iterating it unsubscribes.
    ///
    /// ```swift
    /// let values = subject.subscribe()
    /// Task { for await value in values.map({ $0 * 2 }) { print(value) } }
    /// subject.send(1)   // not missed, even if the task has not started yet
    /// ```
    ///
    /// - Returns: A publisher of the elements sent from now on.
    public func subscribe() -> SubjectSubscription<Element, Failure> {
        SubjectSubscription(storage: storage)
    }

    /// Makes an iterator, subscribed as a new consumer before this returns.
    ///
    /// - Returns: An iterator that receives every element sent from now on.
    public func makeAsyncIterator() -> SubjectIterator<Element, Failure> {
        SubjectIterator(consumer: SubjectConsumer(storage: storage))
    }
}
