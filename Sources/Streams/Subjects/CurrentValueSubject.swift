/// A push source that holds a current value and multicasts every change;
/// each new consumer receives the current value first.
///
/// Use it for state that a consumer needs at once when it starts, such as a
/// device's connection state or its latest battery level. Apart from the
/// current value it behaves as ``PassthroughSubject``: `send(_:)`,
/// ``Subject/finish()`` and ``Subject/fail(_:)`` may be called from any thread or task, each
/// consumer has its own buffer bounded by a ``SubjectBufferingPolicy``, and
/// drops are counted in ``Subject/droppedCount``.
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
public final class CurrentValueSubject<Element: Sendable, Failure: Error>: Subject<Element, Failure>,
    @unchecked Sendable
{
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
        super.init(
            storage: SubjectStorage(
                policy: bufferingPolicy,
                replayLimit: 1,
                initialReplay: [value],
                replaysAfterTermination: false
            ))
    }

    /// The current value: the latest element sent, or the initial one.
    ///
    /// Setting it sends the new value, as ``Subject/send(_:)`` does; after the
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
}
