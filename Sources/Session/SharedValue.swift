import Locking

/// A value a session's tasks share, behind a lock (`Locked` cannot be
/// captured by the tasks' closures itself: it is not copyable).
final class SharedValue<Value: Sendable>: Sendable {
    private let locked: Locked<Value>

    init(_ value: Value) {
        locked = Locked(value)
    }

    func withLock<Result: Sendable>(_ body: (inout Value) -> Result) -> Result {
        locked.withLock { value in body(&value) }
    }
}
