public import Streams

/// The signals a ``DBusMatchRule`` selects, as a `Streams` publisher.
///
/// Made by ``DBusConnection/signals(_:bufferingPolicy:)``, which returns only
/// once the bus has the match rule, so every matching signal sent afterwards
/// is buffered for this stream until you iterate it. The stream ends (`nil`)
/// when the connection is closed, and throws
/// ``DBusError/Code/disconnected`` when the bus goes away. When this value
/// and all its iterators are gone, the match rule is removed from the bus.
///
/// ```swift
/// let changes = try await bus.signals(DBusMatchRule(
///     sender: "org.bluez", interface: "org.freedesktop.DBus.Properties",
///     member: "PropertiesChanged", path: characteristicPath))
/// try await bus.call(destination: "org.bluez", path: characteristicPath,
///                    interface: "org.bluez.GattCharacteristic1", member: "StartNotify")
/// for try await signal in changes {
///     if let value = signal.arguments[1].vardict?["Value"]?.bytes { record(value) }
/// }
/// print("dropped \(changes.droppedCount)")
/// ```
///
/// Iterate it once: the first iterator receives everything buffered since
/// the stream was made; a later iterator only receives signals from the
/// moment it is made.
public struct DBusSignals: Publisher, Sendable {
    /// Each element is one signal.
    public typealias Element = DBusSignal
    /// The stream fails only when the bus goes away.
    public typealias Failure = DBusError

    private let subject: PassthroughSubject<DBusSignal, DBusError>
    private let subscription: SubjectSubscription<DBusSignal, DBusError>
    private let registration: SignalRegistration

    init(
        subject: PassthroughSubject<DBusSignal, DBusError>,
        subscription: SubjectSubscription<DBusSignal, DBusError>,
        registration: SignalRegistration
    ) {
        self.subject = subject
        self.subscription = subscription
        self.registration = registration
    }

    /// The number of signals the buffering policy dropped so far because the
    /// consumer fell behind.
    ///
    /// ```swift
    /// if changes.droppedCount > 0 { log("lost \(changes.droppedCount) notifications") }
    /// ```
    public var droppedCount: Int { subject.droppedCount }

    /// Makes the iterator; the first one receives the signals buffered so far.
    ///
    /// ```swift
    /// var iterator = changes.makeAsyncIterator()
    /// let first = try await iterator.next()
    /// ```
    public func makeAsyncIterator() -> Iterator {
        Iterator(base: subscription.makeAsyncIterator(), registration: registration)
    }

    /// Receives the signals one by one.
    public struct Iterator: AsyncIteratorProtocol {
        private var base: SubjectIterator<DBusSignal, DBusError>
        private var registration: SignalRegistration?

        init(base: SubjectIterator<DBusSignal, DBusError>, registration: SignalRegistration) {
            self.base = base
            self.registration = registration
        }

        /// The next signal, waiting for one if none is buffered.
        ///
        /// - Parameter actor: The caller's isolation; the wait resumes on it.
        /// - Returns: The next signal, or `nil` once the connection was closed
        ///   or the consuming task was cancelled.
        /// - Throws: ``DBusError/Code/disconnected`` once, when the bus went away.
        ///
        /// ```swift
        /// while let signal = try await iterator.next() { print(signal.member) }
        /// ```
        public mutating func next(
            isolation actor: isolated (any Actor)? = #isolation
        ) async throws(DBusError) -> DBusSignal? {
            do {
                guard let signal = try await base.next(isolation: actor) else {
                    registration = nil
                    return nil
                }
                return signal
            } catch {
                registration = nil
                throw error
            }
        }

        /// The next signal, waiting for one if none is buffered.
        ///
        /// - Returns: The next signal, or `nil` once the stream ended.
        /// - Throws: ``DBusError/Code/disconnected`` once, when the bus went away.
        ///
        /// ```swift
        /// let signal = try await iterator.next()
        /// ```
        public mutating func next() async throws(DBusError) -> DBusSignal? {
            try await next(isolation: nil)
        }
    }
}

@available(*, unavailable)
extension DBusSignals.Iterator: Sendable {}
