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
/// is subscribed as soon as it is *made*: ``Subject/makeAsyncIterator()`` and
/// ``Subject/subscribe()`` register the consumer before they return, so every
/// element sent afterwards reaches it. A `for await` loop makes its iterator
/// when the loop starts, so to avoid missing early elements from a task that
/// has not started yet, call ``Subject/subscribe()`` before starting the task and
/// iterate the subscription inside it.
///
/// **No consumer.** An element sent while nobody is subscribed goes nowhere,
/// as with Combine's `PassthroughSubject`; `send(_:)` returns
/// ``SubjectSendResult/noConsumers`` and ``Subject/droppedCount`` does not count it.
///
/// **Buffering.** An element sent to a consumer that is waiting in `next()`
/// is handed over directly. Otherwise it goes to that consumer's buffer,
/// which the ``SubjectBufferingPolicy`` bounds; what the policy drops is
/// counted in ``Subject/droppedCount``.
///
/// **Termination.** The subject ends once, with ``Subject/finish()`` or
/// ``Subject/fail(_:)``; later calls to either are ignored, and later sends are
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
public final class PassthroughSubject<Element: Sendable, Failure: Error>: Subject<Element, Failure>, @unchecked Sendable
{
    /// Creates a subject.
    ///
    /// - Parameter bufferingPolicy: How much each consumer's buffer holds
    ///   while the consumer is busy, and what is dropped beyond that.
    ///   Limits must not be negative. Defaults to ``SubjectBufferingPolicy/unbounded``.
    public init(bufferingPolicy: SubjectBufferingPolicy = .unbounded) {
        super.init(storage: SubjectStorage(policy: bufferingPolicy))
    }
}
