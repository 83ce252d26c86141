
/// The shared state of one iterator of a time-based operator: the state
/// machine, the elements ready for the consumer, the upstream task and the
/// timer task, behind one lock.
///
/// The upstream runs in its own task (started by the first `next`), so that
/// upstream events and timer firings reach the machine while the consumer
/// waits. Every method resumes continuations and cancels tasks only after
/// leaving the lock.
final class ClockedStorage<Machine: ClockedStateMachine, Base: Publisher & Sendable, C: Clock>: Sendable
where Base.Element == Machine.Input, Base.Failure == Machine.UpstreamFailure, C.Instant == Machine.Instant {
    typealias Output = Machine.Output
    typealias Failure = Machine.Failure
    typealias Consumer = UnsafeContinuation<Result<Output?, Failure>, Never>

    enum Phase {
        /// No `next` yet; the upstream is not started.
        case initial
        /// The upstream task runs or the end is pending.
        case running
        /// The consumer received the end or was cancelled; `nil` forever.
        case done
    }

    struct State {
        var machine: Machine
        var phase = Phase.initial
        var outputs = Queue<Output>()
        var end: ClockedAction<Output, Failure, C.Instant>.End?
        var consumer: Consumer?
        var upstream: Task<Void, Never>?
        var timer: Task<Void, Never>?
        var timerGeneration = 0
    }

    /// What to do after leaving the lock.
    struct Effects {
        var resume: (Consumer, Result<Output?, Failure>)?
        var cancel: [Task<Void, Never>] = []

        func run() {
            for task in cancel {
                task.cancel()
            }
            if let (consumer, result) = resume {
                consumer.resume(returning: result)
            }
        }
    }

    private let state: Locked<State>
    private let base: Base
    private let clock: C

    init(machine: sending Machine, base: Base, clock: C) {
        self.state = Locked(State(machine: machine))
        self.base = base
        self.clock = clock
    }

    /// The consumer's next event: an element, the end (`nil`) or the failure.
    func next(isolation actor: isolated (any Actor)?) async -> Result<Output?, Failure> {
        if Task.isCancelled {
            cancel()
            return .success(nil)
        }
        let effects = state.withLock { state -> Effects in
            guard case .initial = state.phase else {
                return Effects()
            }
            state.phase = .running
            var effects = Effects()
            apply(state.machine.start(at: clock.now), to: &state, effects: &effects)
            if case .running = state.phase, state.end == nil {
                state.upstream = startUpstream()
            }
            return effects
        }
        effects.run()
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: Consumer) in
                let result = state.withLock { state -> (Result<Output?, Failure>?, Effects) in
                    var effects = Effects()
                    if let result = take(from: &state, effects: &effects) {
                        return (result, effects)
                    }
                    precondition(state.consumer == nil, "Two concurrent next() calls on one iterator")
                    state.consumer = continuation
                    return (nil, effects)
                }
                result.1.run()
                if let value = result.0 {
                    continuation.resume(returning: value)
                }
            }
        } onCancel: {
            self.cancel()
        }
    }

    /// Ends the iteration: cancels the upstream and timer tasks and ends a
    /// waiting consumer with `nil`. Used for cancellation and when the
    /// iterator is released.
    func cancel() {
        let effects = state.withLock { state -> Effects in
            var effects = Effects()
            state.phase = .done
            state.outputs = Queue()
            state.end = nil
            finish(&state, effects: &effects)
            if let consumer = state.consumer.take() {
                effects.resume = (consumer, .success(nil))
            }
            return effects
        }
        effects.run()
    }

    /// An element, the end or nothing (the consumer must wait).
    private func take(from state: inout State, effects: inout Effects) -> Result<Output?, Failure>? {
        switch state.phase {
        case .done:
            return .success(nil)
        case .initial, .running:
            if let output = state.outputs.popFirst() {
                return .success(output)
            }
            guard let end = state.end else {
                return nil
            }
            state.end = nil
            state.phase = .done
            finish(&state, effects: &effects)
            switch end {
            case .finish: return .success(nil)
            case .fail(let error): return .failure(error)
            }
        }
    }

    /// Releases the tasks (to be cancelled after the lock).
    private func finish(_ state: inout State, effects: inout Effects) {
        if let upstream = state.upstream.take() {
            effects.cancel.append(upstream)
        }
        if let timer = state.timer.take() {
            effects.cancel.append(timer)
        }
        state.timerGeneration += 1
    }

    /// Carries out an action of the machine, then serves a waiting consumer.
    private func apply(_ action: Machine.Action, to state: inout State, effects: inout Effects) {
        switch action.outputs {
        case .none: break
        case .one(let output): state.outputs.append(output)
        case .many(let outputs):
            for output in outputs {
                state.outputs.append(output)
            }
        }
        if let end = action.end, state.end == nil {
            state.end = end
            // The stream's end is decided: stop producing.
            finish(&state, effects: &effects)
        } else {
            switch action.timer {
            case .keep:
                break
            case .cancel:
                if let timer = state.timer.take() {
                    effects.cancel.append(timer)
                }
                state.timerGeneration += 1
            case .arm(let deadline):
                if let timer = state.timer.take() {
                    effects.cancel.append(timer)
                }
                state.timerGeneration += 1
                state.timer = startTimer(deadline: deadline, generation: state.timerGeneration)
            }
        }
        if let consumer = state.consumer {
            var resultEffects = Effects()
            if let result = take(from: &state, effects: &resultEffects) {
                state.consumer = nil
                effects.resume = (consumer, result)
                effects.cancel += resultEffects.cancel
            }
        }
    }

    /// Runs one machine event under the lock unless the iteration ended.
    private func handle(_ event: (inout Machine) -> Machine.Action) {
        let effects = state.withLock { state -> Effects in
            var effects = Effects()
            guard case .running = state.phase, state.end == nil else {
                return effects
            }
            apply(event(&state.machine), to: &state, effects: &effects)
            return effects
        }
        effects.run()
    }

    private func startUpstream() -> Task<Void, Never> {
        Task {
            var iterator = base.makeAsyncIterator()
            do throws(Base.Failure) {
                while let element = try await iterator.next(isolation: nil) {
                    let now = clock.now
                    handle { $0.receive(element, at: now) }
                }
                let now = clock.now
                handle { $0.finish(at: now) }
            } catch {
                handle { $0.fail(error) }
            }
        }
    }

    private func startTimer(deadline: C.Instant, generation: Int) -> Task<Void, Never> {
        Task {
            do {
                try await clock.sleep(until: deadline, tolerance: nil)
            } catch {
                return
            }
            let effects = state.withLock { state -> Effects in
                var effects = Effects()
                guard case .running = state.phase, state.end == nil, state.timerGeneration == generation else {
                    return effects
                }
                state.timer = nil
                apply(state.machine.timerFired(at: deadline), to: &state, effects: &effects)
                return effects
            }
            effects.run()
        }
    }
}

/// Owned by one iterator: releasing the iterator ends its iteration.
final class ClockedIteration<Machine: ClockedStateMachine, Base: Publisher & Sendable, C: Clock>
where Base.Element == Machine.Input, Base.Failure == Machine.UpstreamFailure, C.Instant == Machine.Instant {
    let storage: ClockedStorage<Machine, Base, C>
    /// Set once the consumer received the end.
    var ended = false

    init(machine: sending Machine, base: Base, clock: C) {
        storage = ClockedStorage(machine: machine, base: base, clock: clock)
    }

    /// The next element; `nil` forever after the end.
    func next(isolation actor: isolated (any Actor)?) async throws(Machine.Failure) -> Machine.Output? {
        guard !ended else {
            return nil
        }
        switch await storage.next(isolation: actor) {
        case .success(let output?):
            return output
        case .success(nil):
            ended = true
            return nil
        case .failure(let error):
            ended = true
            throw error
        }
    }

    deinit {
        storage.cancel()
    }
}
