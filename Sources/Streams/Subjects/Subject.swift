/// What every subject does: ``PassthroughSubject``, ``CurrentValueSubject``
/// and ``ReplaySubject`` are subjects, and differ only in what a new
/// consumer receives first.
///
/// Use it as a parameter type to accept any subject. You cannot make a
/// `Subject` yourself; create one of the three subjects.
///
/// ```swift
/// func forward(_ bytes: [UInt8], to subject: Subject<[UInt8], Never>) {
///     subject.send(bytes)
/// }
/// ```
///
/// Each consumer is subscribed when its iterator or subscription is made
/// and has its own buffer, bounded by a ``SubjectBufferingPolicy``. The
/// subject ends once, with ``finish()`` or ``fail(_:)``; releasing its last
/// reference finishes it. It is `Sendable`: every method may be called from
/// any thread or task.
public class Subject<Element: Sendable, Failure: Error>: Publisher, @unchecked Sendable {
    // @unchecked: the only stored property is an immutable reference to a
    // Sendable storage; subclasses add no stored state.

    /// The iterator type: one consumer of the subject.
    public typealias AsyncIterator = SubjectIterator<Element, Failure>

    @usableFromInline let storage: SubjectStorage<Element, Failure>

    init(storage: SubjectStorage<Element, Failure>) {
        self.storage = storage
    }

    deinit {
        storage.terminate(.finished)
    }

    /// Sends an element to every consumer subscribed now.
    ///
    /// Safe to call from any thread or task. A consumer waiting in `next()`
    /// is resumed with the element; a busy one gets it in its buffer,
    /// subject to the buffering policy. A ``CurrentValueSubject`` makes it
    /// the current value, a ``ReplaySubject`` keeps it for replay, even with
    /// no consumer.
    ///
    /// ```swift
    /// subject.send(42)
    /// ```
    ///
    /// - Parameter element: The element to send.
    /// - Returns: What happened to the element; see ``SubjectSendResult``.
    @discardableResult
    @inlinable
    public final func send(_ element: Element) -> SubjectSendResult {
        storage.send(element)
    }

    /// Finishes the subject: after draining its buffer, each consumer ends
    /// with `nil`; a ``ReplaySubject``'s later consumers get the replay,
    /// then `nil`.
    ///
    /// Does nothing if the subject already finished or failed.
    public final func finish() {
        storage.terminate(.finished)
    }

    /// Fails the subject: after draining its buffer, each consumer's `next()`
    /// throws `error` once, then returns `nil`; a ``ReplaySubject``'s later
    /// consumers get the replay, then the error.
    ///
    /// Does nothing if the subject already finished or failed.
    ///
    /// - Parameter error: The error each consumer receives.
    public final func fail(_ error: Failure) {
        storage.terminate(.failed(error))
    }

    /// The number of elements the buffering policy dropped so far, over all
    /// consumers (an element dropped by two consumers counts twice).
    ///
    /// Elements sent while no consumer was subscribed are not counted.
    /// Readable at any time, from any thread.
    public final var droppedCount: Int {
        storage.droppedCount
    }

    /// The number of consumers subscribed now.
    ///
    /// A consumer is subscribed from when its iterator or subscription is
    /// made until it received the end, was cancelled or was dropped.
    public final var consumerCount: Int {
        storage.consumerCount
    }

    /// Whether the subject finished or failed.
    public final var isTerminated: Bool {
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
    public final func waitForSuspendedConsumers(atLeast count: Int) async {
        await storage.waitForSuspended(atLeast: count)
    }

    /// Subscribes a consumer now and returns it as a publisher.
    ///
    /// Every element sent after this call returns is buffered for the
    /// subscription (subject to the buffering policy) until it is iterated;
    /// a ``CurrentValueSubject``'s subscription first holds the value
    /// current at this moment, a ``ReplaySubject``'s the replayed elements.
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
    /// - Returns: A publisher of the elements sent from now on (after the
    ///   current value or the replay).
    public final func subscribe() -> SubjectSubscription<Element, Failure> {
        SubjectSubscription(storage: storage)
    }

    /// Makes an iterator, subscribed as a new consumer before this returns.
    ///
    /// - Returns: An iterator that receives every element sent from now on
    ///   (after the current value or the replay).
    public final func makeAsyncIterator() -> SubjectIterator<Element, Failure> {
        SubjectIterator(consumer: SubjectConsumer(storage: storage))
    }
}
