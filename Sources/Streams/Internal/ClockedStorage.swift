// Public: the storage is inlinable (specialised in its clients) and locks with `Locked`.
public import Locking

/// The shared state of one iteration of a time-based operator (the
/// storage its ``OperatorIterator`` holds): the state machine, the elements ready for the consumer, the upstream task and the
/// timer task, behind one lock.
///
/// The upstream runs in its own task (started by the first `next`), so that
/// upstream events and timer firings reach the machine while the consumer
/// waits. Every method resumes continuations and cancels tasks only after
/// leaving the lock.
///
/// The timer is one long-lived task per iteration, not a task per arming:
/// re-arming it for a later instant (what debounce and timeout do on every
/// element) only records the new deadline. The sleeping task finds the
/// deadline moved when it wakes and sleeps again; a parked task (nothing
/// armed) is resumed with the deadline. Only a deadline moved *earlier* than
/// the one being slept towards replaces the task.
///
/// The timer runs only while the consumer waits. While the consumer is busy
/// (or has not asked yet), an armed deadline is only recorded: whoever comes
/// next past it — an upstream event, the finish, the failure, or the
/// consumer's `next` — fires it first (``fireElapsed(before:_:effects:)``),
/// so the consumer sees the same elements in the same order as if the timer
/// had fired at the deadline, without a task wake per arming. When the
/// consumer starts waiting with a deadline armed, the timer is set going.
@usableFromInline
final class ClockedStorage<Machine: ClockedStateMachine, Base: Publisher & Sendable, C: Clock>: IterationStorage
where Base.Element == Machine.Input, Base.Failure == Machine.UpstreamFailure, C.Instant == Machine.Instant {
    @usableFromInline typealias Element = Machine.Output
    @usableFromInline typealias Output = Machine.Output
    @usableFromInline typealias Failure = Machine.Failure
    @usableFromInline typealias Consumer = UnsafeContinuation<Result<Output?, Failure>, Never>

    @usableFromInline
    enum Phase {
        /// No `next` yet; the upstream is not started.
        case initial
        /// The upstream task runs or the end is pending.
        case running
        /// The consumer received the end or was cancelled; `nil` forever.
        case done
    }

    @usableFromInline
    struct State {
        @usableFromInline var machine: Machine
        @usableFromInline var phase = Phase.initial
        @usableFromInline var outputs = Queue<Output>()
        @usableFromInline var end: ClockedAction<Output, Failure, C.Instant>.End?
        @usableFromInline var consumer: Consumer?
        @usableFromInline var upstream: Task<Void, Never>?
        /// The timer task, started on the first arming.
        @usableFromInline var timer: Task<Void, Never>?
        /// Which timer task is current; a replaced one exits when it sees this change.
        @usableFromInline var timerID = 0
        /// The armed deadline, if any.
        @usableFromInline var deadline: C.Instant?
        /// The instant the timer task sleeps towards, while it sleeps.
        @usableFromInline var sleepingUntil: C.Instant?
        /// The timer task, parked because nothing was armed.
        @usableFromInline var timerWaiter: TimerWaiter?
        /// Tasks released under the lock, to be cancelled after it (see
        /// ``Effects/cancelTasks``).
        @usableFromInline var released: [Task<Void, Never>] = []

        @inlinable
        init(machine: sending Machine) {
            self.machine = machine
        }
    }

    @usableFromInline typealias TimerWaiter = UnsafeContinuation<C.Instant?, Never>

    /// What to do after leaving the lock (``perform(_:)``).
    ///
    /// It is built and dropped for every upstream event, so it holds no
    /// reference: the tasks to cancel wait in `State.released`, and
    /// `cancelTasks` says to take them. With trivial elements the value is
    /// then trivial too, and dropping it costs nothing (holding the tasks
    /// here, it was destroyed through its value witness per element).
    @usableFromInline
    struct Effects {
        @usableFromInline var resume: (Consumer, Result<Output?, Failure>)?
        /// A parked timer task and what to wake it with (`nil`: stop).
        @usableFromInline var wakeTimer: (TimerWaiter, C.Instant?)?
        /// Tasks were released into `State.released`.
        @usableFromInline var cancelTasks = false

        @inlinable
        init() {}
    }

    /// Carries out `effects` after leaving the lock: cancels the released
    /// tasks, wakes a parked timer, resumes the consumer, in that order.
    @inlinable
    func perform(_ effects: Effects) {
        if effects.cancelTasks {
            let tasks = state.withLock { state in
                var tasks: [Task<Void, Never>] = []
                swap(&tasks, &state.released)
                return tasks
            }
            for task in tasks {
                task.cancel()
            }
        }
        if let (waiter, deadline) = effects.wakeTimer {
            waiter.resume(returning: deadline)
        }
        if let (consumer, result) = effects.resume {
            consumer.resume(returning: result)
        }
    }

    @usableFromInline let state: Locked<State>
    @usableFromInline let base: Base
    @usableFromInline let clock: C

    @inlinable
    init(machine: sending Machine, base: Base, clock: C) {
        self.state = Locked(State(machine: machine))
        self.base = base
        self.clock = clock
        StreamsTaskExecutor.noteTiming(on: clock)
    }

    /// The consumer's next event: an element, the end (`nil`) or the
    /// failure. When several outputs are ready, the ones after the returned
    /// one move to `batch` in the same lock (the queue's storage is
    /// swapped, not copied), so the consumer takes a burst for one lock and
    /// no suspension.
    @inlinable
    func next(isolation actor: isolated (any Actor)?, batch: inout Queue<Output>) async -> Result<Output?, Failure> {
        if Task.isCancelled {
            cancel()
            return .success(nil)
        }
        let (effects, ready) = state.withLock { state -> (Effects, Output?) in
            var effects = Effects()
            if case .initial = state.phase {
                state.phase = .running
                apply(state.machine.start(at: clock.now), to: &state, effects: &effects)
                if case .running = state.phase, state.end == nil {
                    state.upstream = startUpstream()
                }
            }
            guard case .running = state.phase else {
                return (effects, nil)
            }
            if state.outputs.count > 1 {
                swap(&state.outputs, &batch)
                return (effects, batch.popFirst())
            }
            return (effects, state.outputs.popFirst())
        }
        perform(effects)
        if let ready {
            return .success(ready)
        }
        return await withTaskCancellationHandler {
            // Passing (capturing) `actor` keeps this closure on the caller's actor: a
            // closure that does not capture it runs nonisolated, and a main-actor
            // consumer hopped off and back on for every wait.
            await withUnsafeContinuation(isolation: actor) { (continuation: Consumer) in
                let now = clock.now
                let result = state.withLock { state -> (Result<Output?, Failure>?, Effects) in
                    var effects = Effects()
                    if state.outputs.isEmpty, case .running = state.phase, state.end == nil {
                        // A deadline already past: emit here rather than wait for the timer task.
                        fireElapsed(before: now, &state, effects: &effects)
                    }
                    if let result = take(from: &state, effects: &effects) {
                        return (result, effects)
                    }
                    precondition(state.consumer == nil, "Two concurrent next() calls on one iterator")
                    state.consumer = continuation
                    if let deadline = state.deadline {
                        // The timer runs while the consumer waits.
                        runTimer(towards: deadline, &state, effects: &effects)
                    }
                    return (nil, effects)
                }
                perform(result.1)
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
    @inlinable
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
        perform(effects)
    }

    /// An element, the end or nothing (the consumer must wait).
    @inlinable
    func take(from state: inout State, effects: inout Effects) -> Result<Output?, Failure>? {
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
    @inlinable
    func finish(_ state: inout State, effects: inout Effects) {
        if let upstream = state.upstream.take() {
            state.released.append(upstream)
            effects.cancelTasks = true
        }
        stopTimer(&state, effects: &effects)
    }

    /// Ends the timer task, parked or sleeping, and disarms.
    @inlinable
    func stopTimer(_ state: inout State, effects: inout Effects) {
        if let timer = state.timer.take() {
            state.released.append(timer)
            effects.cancelTasks = true
        }
        if let waiter = state.timerWaiter.take() {
            effects.wakeTimer = (waiter, nil)
        }
        state.timerID += 1
        state.deadline = nil
        state.sleepingUntil = nil
    }

    /// Makes the timer task fire at `deadline` (the armed one), reusing the
    /// task where it can. Called only while the consumer waits.
    @inlinable
    func runTimer(towards deadline: C.Instant, _ state: inout State, effects: inout Effects) {
        if let waiter = state.timerWaiter.take() {
            state.sleepingUntil = deadline
            effects.wakeTimer = (waiter, deadline)
        } else if state.timer == nil {
            state.timer = startTimer(id: state.timerID)
        } else if let sleeping = state.sleepingUntil, deadline < sleeping {
            // Earlier than the task will wake: replace it.
            let keep = deadline
            stopTimer(&state, effects: &effects)
            state.deadline = keep
            state.timer = startTimer(id: state.timerID)
        }
        // Otherwise the task sleeps towards an earlier instant (or is about
        // to fire) and finds the new deadline when it wakes.
    }

    /// Carries out an action of the machine, then serves a waiting consumer.
    ///
    /// If the consumer still waits with a deadline armed, the deadline is
    /// fired here when it has already passed (read against the clock unless
    /// it is later than `now`, the instant of the event), rather than by
    /// waking the timer task: a zero interval or a deadline that passed
    /// while the event was handled costs no task wake. Otherwise the timer
    /// is set going. The firings of ``fireElapsed(before:_:effects:)`` pass
    /// `firing: true` and leave this to their caller.
    @inlinable
    func apply(
        _ action: Machine.Action, to state: inout State, effects: inout Effects, at now: C.Instant? = nil,
        firing: Bool = false
    ) {
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
                // The task, if sleeping, wakes to find nothing armed and parks.
                state.deadline = nil
            case .arm(let deadline):
                // Recorded only; set going below if the consumer still waits.
                state.deadline = deadline
            }
        }
        if let consumer = state.consumer {
            var resultEffects = Effects()
            if let result = take(from: &state, effects: &resultEffects) {
                state.consumer = nil
                effects.resume = (consumer, result)
                if resultEffects.cancelTasks {
                    effects.cancelTasks = true
                }
                if let wake = resultEffects.wakeTimer {
                    effects.wakeTimer = wake
                }
            } else if !firing {
                // The consumer keeps waiting: only the timer (or the next
                // upstream event) can end its wait.
                serveWaitingConsumer(at: now, &state, effects: &effects)
            }
        }
    }

    /// The consumer waits with nothing to take: fires an armed deadline
    /// that already passed, then sets the timer going towards the one armed
    /// after that, if the consumer still waits.
    @inlinable
    func serveWaitingConsumer(at eventInstant: C.Instant?, _ state: inout State, effects: inout Effects) {
        guard let deadline = state.deadline else {
            return
        }
        if eventInstant.map({ deadline <= $0 }) ?? true {
            let now = clock.now
            if deadline < now {
                fireElapsed(before: now, &state, effects: &effects)
            }
        }
        guard state.consumer != nil, case .running = state.phase, state.end == nil, let armed = state.deadline else {
            return
        }
        runTimer(towards: armed, &state, effects: &effects)
    }

    /// Runs one machine event under the lock unless the iteration ended.
    @inlinable @inline(__always)
    func handle(at now: C.Instant? = nil, _ event: (inout Machine) -> Machine.Action) {
        let effects = state.withLock { state -> Effects in
            var effects = Effects()
            guard case .running = state.phase, state.end == nil else {
                return effects
            }
            if let now {
                fireElapsed(before: now, &state, effects: &effects)
                guard case .running = state.phase, state.end == nil else {
                    return effects
                }
            }
            apply(event(&state.machine), to: &state, effects: &effects, at: now)
            return effects
        }
        perform(effects)
    }

    /// Fires the armed timer here while its deadline is already past `now`:
    /// an event at `now` comes after those firings, so it is processed as
    /// the timer task would have, without waking it (it finds the deadline
    /// gone or moved and goes round again). A firing that re-arms for a
    /// later instant also past `now` (a throttle window that ended while
    /// another one would have ended too) fires again; one that re-arms for
    /// the same instant is left to the timer.
    @inlinable
    func fireElapsed(before now: C.Instant, _ state: inout State, effects: inout Effects) {
        var previous: C.Instant?
        while let armed = state.deadline, armed < now, case .running = state.phase, state.end == nil {
            if let previous, armed <= previous {
                return
            }
            previous = armed
            state.deadline = nil
            apply(state.machine.timerFired(at: armed), to: &state, effects: &effects, firing: true)
        }
    }

    @inlinable
    func startUpstream() -> Task<Void, Never> {
        Task(executorPreference: StreamsTaskExecutor.current) { [self] in
            var iterator = base.makeAsyncIterator()
            do throws(Base.Failure) {
                while let element = try await iterator.next(isolation: nil) {
                    let now = clock.now
                    handle(at: now) { $0.receive(element, at: now) }
                }
                let now = clock.now
                handle(at: now) { $0.finish(at: now) }
            } catch {
                // A deadline passed before the failure fires first.
                let now = clock.now
                handle(at: now) { $0.fail(error) }
            }
        }
    }

    /// The timer task: waits for a deadline, sleeps until it, and fires the
    /// machine if that deadline is still the armed one; until the iteration
    /// ends or the task is replaced.
    @inlinable
    func startTimer(id: Int) -> Task<Void, Never> {
        Task(executorPreference: StreamsTaskExecutor.current) { [self] in
            while true {
                let next: C.Instant? = await withUnsafeContinuation { (waiter: TimerWaiter) in
                    let armed: C.Instant?? = state.withLock { state in
                        guard state.timerID == id, case .running = state.phase, state.end == nil else {
                            return .some(nil)
                        }
                        if let deadline = state.deadline {
                            state.sleepingUntil = deadline
                            return .some(deadline)
                        }
                        state.timerWaiter = waiter
                        return nil
                    }
                    if let armed {
                        waiter.resume(returning: armed)
                    }
                }
                guard let deadline = next else {
                    return
                }
                if deadline > clock.now {
                    do {
                        try await clock.sleep(until: deadline, tolerance: nil)
                    } catch {
                        return
                    }
                }
                let effects = state.withLock { state -> Effects in
                    var effects = Effects()
                    guard state.timerID == id, case .running = state.phase, state.end == nil else {
                        return effects
                    }
                    state.sleepingUntil = nil
                    // Disarmed, or moved later: go round again.
                    guard let armed = state.deadline, armed <= deadline else {
                        return effects
                    }
                    state.deadline = nil
                    apply(state.machine.timerFired(at: armed), to: &state, effects: &effects)
                    return effects
                }
                perform(effects)
                if Task.isCancelled {
                    return
                }
            }
        }
    }
}
