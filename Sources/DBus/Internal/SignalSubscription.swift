import Locking
import Streams

/// One ``DBusConnection/signals(_:bufferingPolicy:)`` stream, as the event
/// loop sees it.
final class SignalSubscription: Sendable {
    let id: UInt64
    let rule: DBusMatchRule
    let subject: PassthroughSubject<DBusSignal, DBusError>
    /// Sees each matching signal before `subject` does; a signal it takes
    /// (`true`) is not sent to `subject`.
    let intercept: (@Sendable (DBusSignal) -> Bool)?
    /// Called after a dispatch round in which `intercept` took signals.
    let endOfBurst: (@Sendable () -> Void)?
    /// Match rules added at the bus for this stream, removed when it ends.
    let addedMatches = Locked<[String]>([])

    init(
        id: UInt64, rule: DBusMatchRule, subject: PassthroughSubject<DBusSignal, DBusError>,
        intercept: (@Sendable (DBusSignal) -> Bool)? = nil, endOfBurst: (@Sendable () -> Void)? = nil
    ) {
        self.id = id
        self.rule = rule
        self.subject = subject
        self.intercept = intercept
        self.endOfBurst = endOfBurst
    }
}

/// Ends a subscription (and removes its match rules) when the last stream or
/// iterator holding it goes away.
final class SignalRegistration: Sendable {
    let core: ConnectionCore
    let id: UInt64

    init(core: ConnectionCore, id: UInt64) {
        self.core = core
        self.id = id
    }

    deinit {
        core.unsubscribe(id)
    }
}
