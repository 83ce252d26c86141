/// A push source that holds a current value and multicasts every change;
/// each new consumer receives the current value first.
///
/// Use it for state that a consumer needs at once when it starts, such as a
/// device's connection state or its latest battery level. Apart from the
/// current value it behaves as ``PassthroughSubject``: `send(_:)`,
/// ``finish()`` and ``fail(_:)`` may be called from any thread or task, each
/// consumer has its own buffer bounded by a ``SubjectBufferingPolicy``, and
/// drops are counted in ``droppedCount``.
///
/// ```swift
/// let connection = CurrentValueSubject<Bool, Never>(false)
/// let states = connection.subscribe()      // its buffer holds `false` already
/// connection.send(true)
/// connection.finish()
/// for await connected in states { print(connected) }
/// // false
/// // true
/// ```
///
/// **Current value.** ``value`` is the latest element sent (or the initial
/// one); it changes even while nobody is subscribed. A consumer subscribes
/// when its iterator or subscription is made, and its buffer then starts
/// with the current value, atomically with respect to concurrent sends: it
/// receives the value current at that moment and every later one, with no
/// gap or duplicate. The current value is delivered whatever the buffering
/// policy, even with a zero limit; the policy applies to the later sends.
///
/// **Termination.** As ``PassthroughSubject``: the subject ends once; each
/// consumer drains its buffer, then gets the end or the error. A consumer
/// that subscribes after the end receives only the end or the error, not
/// the value (as Combine's `CurrentValueSubject` and RxSwift's
/// `BehaviorSubject` do). Sends after the end are ignored and leave
/// ``value`` unchanged. Releasing the last reference finishes the subject.
///
/// **Cancellation.** Cancelling a consuming task, or dropping its iterator,
/// ends and unsubscribes that consumer; its `next()` returns `nil` and never
/// throws `CancellationError`.
public final class CurrentValueSubject<Element: Sendable, Failure: Error>: Publisher, Sendable {
    /// The iterator type: one consumer of the subject.
    public typealias AsyncIterator = SubjectIterator<Element, Failure>

    let storage: SubjectStorage<Element, Failure>

    /// Creates a subject holding `value`.
    ///
    /// ```swift
    /// let level = CurrentValueSubject<Int, Never>(100, bufferingPolicy: .bufferingNewest(1))
    /// ```
    ///
    /// - Parameters:
    ///   - value: The initial current value.
    ///   - bufferingPolicy: How much each consumer's buffer holds while the
    ///     consumer is busy, and what is dropped beyond that. Limits must not
    ///     be negative. Defaults to ``SubjectBufferingPolicy/unbounded``.
    public init(_ value: Element, bufferingPolicy: SubjectBufferingPolicy = .unbounded) {
        storage = SubjectStorage(
            policy: bufferingPolicy,
            replayLimit: 1,
            initialReplay: [value],
            replaysAfterTermination: false
        )
    }

    deinit {
        storage.terminate(.finished)
    }

    /// The current value: the latest element sent, or the initial one.
    ///
    /// Setting it sends the new value, as ``send(_:)`` does; after the
    /// subject ended, setting it does nothing.
    ///
    /// ```swift
    /// let level = CurrentValueSubject<Int, Never>(100)
    /// level.value = 99        // sent to every consumer
    /// print(level.value)      // 99
    /// ```
    public var value: Element {
        get {
            // The replay buffer of a current-value subject always holds exactly one element.
            storage.replayBuffer[0]
        }
        set {
            _ = storage.send(newValue)
        }
    }

    /// Makes `element` the current value and sends it to every consumer
    /// subscribed now.
    ///
    /// Safe to call from any thread or task. A consumer waiting in `next()`
    /// is resumed with the element; a busy one gets it in its buffer,
    /// subject to the buffering policy.
    ///
    /// ```swift
    /// let level = CurrentValueSubject<Int, Never>(100)
    /// level.send(98)
    /// ```
    ///
    /// - Parameter element: The new current value.
    /// - Returns: What happened to the element; see ``SubjectSendResult``.
    ///   With no consumer the value still becomes current.
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
    public var droppedCount: Int {
        storage.droppedCount
    }

    /// The number of consumers subscribed now.
    public var consumerCount: Int {
        storage.consumerCount
    }

    /// Whether the subject finished or failed.
    public var isTerminated: Bool {
        storage.isTerminated
    }

    /// Waits until at least `count` consumers are suspended in `next()`.
    ///
    /// Meant for tests, as ``PassthroughSubject/waitForSuspendedConsumers(atLeast:)``.
    ///
    /// ```swift
    /// await subject.waitForSuspendedConsumers(atLeast: 1)
    /// subject.send(42)   // handed straight to the waiting consumer
    /// ```
    ///
    /// - Parameter count: The number of suspended consumers to wait for.
    public func waitForSuspendedConsumers(atLeast count: Int) async {
        await storage.waitForSuspended(atLeast: count)
    }

    /// Subscribes a consumer now and returns it as a publisher; its first
    /// element is the value current at this moment.
    ///
    /// ```swift
    /// let states = connection.subscribe()
    /// Task { for await connected in states { print(connected) } }
    /// ```
    ///
    /// - Returns: A publisher of the current value and every value sent from now on.
    public func subscribe() -> SubjectSubscription<Element, Failure> {
        SubjectSubscription(storage: storage)
    }

    /// Makes an iterator, subscribed as a new consumer before this returns;
    /// it receives the current value first.
    ///
    /// - Returns: An iterator over the current value and every later one.
    public func makeAsyncIterator() -> SubjectIterator<Element, Failure> {
        SubjectIterator(consumer: SubjectConsumer(storage: storage))
    }
}
