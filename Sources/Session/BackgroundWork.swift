import Foundation

/// Work run on a thread of its own while the caller does something else;
/// ``wait()`` returns its result (or throws its error) once it is done.
///
/// An import surveys its capture files this way while the recorder sets up
/// the recording (its index, its first segment and their syncs).
final class BackgroundWork<Value: Sendable>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    // Written by the thread before it signals `done`; read after `wait()`.
    private var result: Result<Value, any Error>?

    /// Starts `body` on a new thread named `name`.
    init(name: String, _ body: @escaping @Sendable () throws -> Value) {
        let thread = Thread { [self] in
            result = Result { try body() }
            done.signal()
        }
        thread.name = name
        thread.start()
    }

    /// Waits for the work to end: its value, or its error.
    func wait() throws -> Value {
        done.wait()
        done.signal()  // a second wait returns at once
        return try result!.get()
    }
}
