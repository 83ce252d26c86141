import Streams
import Dispatch
import Foundation
import Locking

/// Turns SIGINT/SIGTERM into a flag and a callback, instead of the default
/// action of killing the process, so recording can close cleanly.
final class SignalWatcher: Sendable {
    private struct State {
        var fired = false
        var handlers: [@Sendable () -> Void] = []
    }

    private let state = Locked(State())
    private let signals: [Int32]
    // Set once in init and never mutated; Dispatch sources are thread-safe
    // objects (their methods may be called from any thread), but are not
    // annotated Sendable.
    private nonisolated(unsafe) let sources: [any DispatchSourceSignal]

    init(signals: [Int32]) {
        self.signals = signals
        let queue = DispatchQueue(label: "tlm.signals")
        var sources: [any DispatchSourceSignal] = []
        for number in signals {
            signal(number, SIG_IGN)
            sources.append(DispatchSource.makeSignalSource(signal: number, queue: queue))
        }
        self.sources = sources
        for source in sources {
            source.setEventHandler { [weak self] in self?.fire() }
            source.resume()
        }
    }

    /// Whether a signal arrived.
    var fired: Bool { state.withLock { $0.fired } }

    /// Calls `handler` once when a signal arrives (at once if one already did).
    func onSignal(_ handler: @escaping @Sendable () -> Void) {
        let already = state.withLock { state -> Bool in
            if !state.fired { state.handlers.append(handler) }
            return state.fired
        }
        if already { handler() }
    }

    private func fire() {
        let handlers = state.withLock { state -> [@Sendable () -> Void] in
            guard !state.fired else { return [] }
            state.fired = true
            defer { state.handlers = [] }
            return state.handlers
        }
        for handler in handlers { handler() }
    }

    /// Stops watching and restores the default actions.
    func cancel() {
        for source in sources { source.cancel() }
        for number in signals { signal(number, SIG_DFL) }
    }
}
