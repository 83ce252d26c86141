import Locking
public import Streams

/// Runs a publisher under test in lockstep virtual time against scripted
/// inputs, and records every output with the tick at which it really
/// happened; on a par with RxJS's `TestScheduler`.
///
/// Make the inputs from marble diagrams (``hot(_:)``, ``cold(_:)``, see
/// ``MarbleDiagram``), build the pipeline on them and on ``clock``, then
/// ``run(_:cancelAt:through:)`` it and compare the ``TestRun`` with the
/// expected diagram, and each input's subscriptions with the expected
/// subscription marbles (``TestSubscription``):
///
/// ```swift
/// let scheduler = TestScheduler()
/// let input = scheduler.hot("a-b----c--|")
/// let run = await scheduler.run(input.debounce(for: scheduler.ticks(3), clock: scheduler.clock))
/// #expect(run.mismatch(expected: "-----b----[c|]") == nil)
/// #expect(input.subscriptionMarbles == ["^---------!"])
/// ```
///
/// **Lockstep time.** The run starts the consumer at tick 0 and lets the
/// pipeline settle. Then, at each tick `t`:
///
/// 1. the timers due before `t` fire, one deadline at a time in deadline
///    order, the pipeline settling after each; the clock moves to `t`;
/// 2. every input's events due at `t` are sent, in the order the inputs
///    were made, all before any task of the pipeline runs, and the
///    pipeline settles;
/// 3. the timers due at `t` fire (timers armed meanwhile for `t` too) and
///    the pipeline settles.
///
/// The events of one tick are sent together, before the pipeline runs: a
/// subscription made in response to one of them misses the other hot
/// inputs' events of that tick (as it would in a real system, where they
/// happened at once). An input at a tick is processed before a timer due at
/// the same tick,
/// and an output is stamped with the tick of the clock when the consumer
/// received it: an early, late, missing or extra output changes the
/// recorded diagram. The run never waits for the outputs the test expects.
/// Stamps are exact whole ticks (counted on attoseconds): an output
/// between two ticks gets the earlier one, so lateness under one tick is
/// not seen; choose a tick as fine as the timing the test asserts.
///
/// **Settling: the exact guarantee.** The consumer of the output runs as a
/// task that prefers the scheduler's own task executor, a serial queue that
/// counts the jobs enqueued and not yet finished; and every task Streams'
/// operators start from it (upstream, timer, inner and producer tasks)
/// prefers the same executor (through `StreamsTaskExecutor`, a task-local
/// the scheduler binds). A job is counted from the moment something
/// resumes its task (an element sent, a timer woken, a continuation
/// resumed) until it suspends again, so when the count is zero every task
/// of the pipeline is suspended: nothing is ready to run. The pipeline has
/// *settled* when the count is zero, the consumer waits in `next()` (or the
/// output ended), and a further check finds the count still zero and no
/// input, sleeper or output activity since. What the scheduler cannot see
/// is a task the pipeline starts itself with no executor preference (a
/// plain `Task {}` in code outside Streams), work on another actor's
/// executor, or a timer on another clock than ``clock``: such work runs
/// concurrently, in real time, and its outputs are stamped late or lost
/// when the run ends first, so a test that asserts an absence could pass
/// with it. Streams' time-based operators tell the scheduler their clock
/// (through `StreamsTaskExecutor`), so one timed on another clock (a
/// `clock:` left out means `ContinuousClock`) is an issue of the run. A
/// pipeline that does not settle within ``settleTimeout`` (a task that
/// never suspends, or one whose work never ends) is reported in
/// ``TestRun/issues`` and the run ends there: never a hang (unless
/// tasks outside the executor hold every thread of the cooperative pool,
/// which the scheduler needs to run). A pipeline that stops pulling an
/// input is reported in ``TestRun/unpulled``.
///
/// **Faults of the test are issues.** A malformed input diagram, a symbol
/// without a typed value, events at negative ticks, a hot input made after
/// its ticks' inputs were sent, a clock not at zero, an operator timed on
/// another clock (see ``ManualClockWrapper``), a second run of one
/// scheduler, a run cut off with a timer armed, and anything the output
/// sends when the scheduler cancels it at the end of the run are reported
/// in ``TestRun/issues`` (and left out of the events), so that they fail
/// `mismatch(expected:)` instead of changing what the test asserts.
///
/// **The end of a run.** The run ends after the tick at which the output
/// ended, or after the last scripted input tick once no timer is armed,
/// or at `through`, or 100 ticks after the last scripted input (an issue
/// if a timer is still armed then: pass `through:`); the consumer is then
/// cancelled. Subscriptions still open at that point have no
/// unsubscription in their marble.
public final class TestScheduler: Sendable {
    /// The clock the pipeline under test must use for its timers.
    public let clock: ManualClock
    /// The virtual duration of one tick.
    public let tick: Duration
    /// How long, in real time, a task of the pipeline may keep running (or
    /// stay ready to run) at a step before the run reports it and ends.
    public let settleTimeout: Duration

    let core: SchedulerCore
    let executor: SchedulerExecutor

    /// How many checks in a row must find the executor idle and nothing
    /// changed for the pipeline to count as settled.
    static let quietRounds = 2
    /// How many checks a step may take before the run reports that work
    /// outside the executor never stopped.
    static let maximumChecks = 10_000
    /// How many ticks past the inputs' last event a run without `through`
    /// goes while a timer is armed.
    static let ticksAfterScript = 100

    /// Creates a scheduler.
    ///
    /// - Parameters:
    ///   - tick: The virtual duration of one tick; 1 second by default.
    ///   - clock: The clock to drive, at zero and used by nothing else; a
    ///     new one by default.
    ///   - settleTimeout: How long in real time the pipeline may take to
    ///     settle at one step; 2 seconds by default.
    public init(tick: Duration = .seconds(1), clock: ManualClock = ManualClock(), settleTimeout: Duration = .seconds(2))
    {
        precondition(tick > .zero, "TestScheduler needs a positive tick, got \(tick)")
        self.tick = tick
        self.settleTimeout = settleTimeout
        self.clock = clock
        core = SchedulerCore(clock: clock, tick: tick)
        executor = SchedulerExecutor(clock: clock)
        if clock.now != .zero {
            core.report(
                "the scheduler's clock is at \(clock.now.offset), not zero: every stamp would be shifted "
                    + "(a clock used before); give each scheduler a new ManualClock")
        }
    }

    /// The duration of `count` ticks, for the operators' intervals.
    ///
    /// - Parameter count: A number of ticks.
    /// - Returns: `count` times ``tick``.
    public func ticks(_ count: Int) -> Duration {
        tick * count
    }

    /// A hot input from a diagram of single-character or `(…)` values.
    ///
    /// - Parameter diagram: The events, for example `"a-(bc)-#"`.
    /// - Returns: The input, a publisher of `String`s.
    public func hot(_ diagram: String) -> TestInput<String, MarbleError> {
        hot(events(of: diagram), name: "hot \(diagram)")
    }

    /// A cold input from a diagram of single-character or `(…)` values.
    ///
    /// - Parameter diagram: The events, tick 0 being each subscription's.
    /// - Returns: The input, a publisher of `String`s.
    public func cold(_ diagram: String) -> TestInput<String, MarbleError> {
        cold(events(of: diagram), name: "cold \(diagram)")
    }

    /// A hot input from a diagram whose symbols stand for typed values and
    /// whose failure (`^` or `#`) stands for `error`.
    ///
    /// ```swift
    /// let input = scheduler.hot("a-b|", values: ["a": 1, "b": 2], error: TestError.upstream)
    /// ```
    ///
    /// - Parameters:
    ///   - diagram: The events.
    ///   - values: The value of each symbol; a symbol without one is
    ///     reported in the run's issues.
    ///   - error: The error the failure symbol stands for.
    /// - Returns: The input.
    public func hot<Element: Sendable, Failure: Error>(
        _ diagram: String, values: [String: Element], error: Failure
    ) -> TestInput<Element, Failure> {
        hot(typed(diagram, values, error), name: "hot \(diagram)")
    }

    /// A cold input from a diagram whose symbols stand for typed values;
    /// see ``hot(_:values:error:)``.
    ///
    /// - Parameters:
    ///   - diagram: The events, tick 0 being each subscription's.
    ///   - values: The value of each symbol; a symbol without one is
    ///     reported in the run's issues.
    ///   - error: The error the failure symbol stands for.
    /// - Returns: The input.
    public func cold<Element: Sendable, Failure: Error>(
        _ diagram: String, values: [String: Element], error: Failure
    ) -> TestInput<Element, Failure> {
        cold(typed(diagram, values, error), name: "cold \(diagram)")
    }

    /// A hot input from explicit events, at absolute ticks.
    ///
    /// - Parameters:
    ///   - events: The events, in tick order.
    ///   - name: How the input is named in reports.
    /// - Returns: The input.
    public func hot<Element: Sendable, Failure: Error>(
        _ events: [MarbleEvent<Element, Failure>], name: String = "hot input"
    ) -> TestInput<Element, Failure> {
        TestInput(name: name, events: events, isHot: true, core: core)
    }

    /// A cold input from explicit events, at ticks from each subscription.
    ///
    /// - Parameters:
    ///   - events: The events, in tick order.
    ///   - name: How the input is named in reports.
    /// - Returns: The input.
    public func cold<Element: Sendable, Failure: Error>(
        _ events: [MarbleEvent<Element, Failure>], name: String = "cold input"
    ) -> TestInput<Element, Failure> {
        TestInput(name: name, events: events, isHot: false, core: core)
    }

    /// The events of a diagram; a malformed diagram is reported in the
    /// run's issues and scripts no events.
    private func events(of diagram: String) -> [MarbleEvent<String, MarbleError>] {
        do {
            return try MarbleDiagram.parse(diagram)
        } catch {
            core.report("the input's \(error)")
            return []
        }
    }

    /// The typed events of a diagram; a symbol without a value is reported
    /// in the run's issues and its event left out.
    private func typed<Element, Failure: Error>(
        _ diagram: String, _ values: [String: Element], _ error: Failure
    ) -> [MarbleEvent<Element, Failure>] {
        events(of: diagram).compactMap { event in
            switch event.kind {
            case .value(let symbol):
                guard let value = values[symbol] else {
                    core.report("the input diagram \"\(diagram)\" uses \"\(symbol)\", which has no value")
                    return nil
                }
                return .value(value, at: event.tick)
            case .finish: return .finish(at: event.tick)
            case .failure: return .failure(error, at: event.tick)
            }
        }
    }

    /// Runs `publisher` in lockstep time and records its output.
    ///
    /// A scheduler runs one publisher; make a new scheduler for each run.
    ///
    /// - Parameters:
    ///   - publisher: The pipeline under test, built on this scheduler's
    ///     inputs and ``clock``.
    ///   - cancelAt: A tick at which to cancel the consuming task, once
    ///     that tick settled; its unsubscriptions are recorded. The run
    ///     goes on to it unless the output ends first.
    ///   - through: The last tick to run, if the run should not end by
    ///     itself (see the type's documentation).
    /// - Returns: The recorded output, issues and unpulled inputs.
    public func run<P: Publisher & Sendable>(
        _ publisher: P, cancelAt: Int? = nil, through: Int? = nil
    ) async -> TestRun<P.Element, P.Failure> where P.Element: Sendable {
        let recorder = MarbleRecorder<P.Element, P.Failure>(clock: clock, tick: tick)
        guard core.startRun() else {
            return TestRun(
                events: [],
                issues: ["this TestScheduler ran a publisher before: make a new scheduler for each run"],
                unpulled: [])
        }
        for (name, tick) in [("cancelAt", cancelAt), ("through", through)] {
            if let tick, tick < 0 {
                core.report("\(name) is tick \(tick): ticks start at 0")
            }
        }
        let executor = self.executor
        let consumer = StreamsTaskExecutor.$preferred.withValue(executor) {
            Task(executorPreference: executor) { await recorder.consume(publisher) }
        }
        var issues: [String] = []
        var cancelled = false
        guard await settle(recorder, "the consumer started", &issues) else {
            return await end(consumer, recorder, issues)
        }
        for current in 0... {
            guard let offset = tick.times(current) else {
                issues.append("the run reached tick \(current), past the latest instant a Duration holds")
                break
            }
            let instant = ManualClock.Instant(offset: offset)
            guard await fireTimers(before: instant, inclusive: false, recorder, &issues) else {
                break
            }
            await clock.advance(before: instant)
            let core = self.core
            await executor.perform { core.feed(current) }
            guard await settle(recorder, "tick \(current)'s inputs were sent", &issues) else {
                break
            }
            guard await fireTimers(before: instant, inclusive: true, recorder, &issues) else {
                break
            }
            if current == cancelAt {
                consumer.cancel()
                cancelled = true
                guard await settle(recorder, "the consumer was cancelled at tick \(current)", &issues) else {
                    break
                }
            }
            if recorder.progress.ended || cancelled || current == through {
                break
            }
            // A run to cancel at a tick goes on to it (unless the output ends first).
            let last = max(core.lastScheduledTick, cancelAt ?? 0)
            if through == nil && current >= last && clock.sleeperCount == 0 {
                break
            }
            if through == nil && current >= last + Self.ticksAfterScript {
                issues.append(
                    "the run stopped at tick \(current), \(Self.ticksAfterScript) ticks after the inputs' last event, "
                        + "with a timer still armed: pass `through:` to run to the tick the test is about")
                break
            }
        }
        return await end(consumer, recorder, issues)
    }

    /// Fires the timers due before `instant` (or at it, if `inclusive`) one
    /// deadline at a time, in deadline order, letting the pipeline settle
    /// after each; a timer armed meanwhile for a deadline in range fires too.
    private func fireTimers<Element: Sendable, Failure: Error>(
        before instant: ManualClock.Instant, inclusive: Bool,
        _ recorder: MarbleRecorder<Element, Failure>, _ issues: inout [String]
    ) async -> Bool {
        while let deadline = clock.nextDeadline, deadline < instant || (inclusive && deadline == instant) {
            await clock.advance(to: deadline)
            guard await settle(recorder, "the timers due at \(deadline) fired", &issues) else {
                return false
            }
        }
        return true
    }

    /// Ends a run: notes what was never pulled, cancels the consumer (its
    /// unsubscriptions are not recorded) and waits a bounded time for it.
    private func end<Element: Sendable, Failure: Error>(
        _ consumer: Task<Void, Never>, _ recorder: MarbleRecorder<Element, Failure>, _ issues: [String]
    ) async -> TestRun<Element, Failure> {
        var issues = core.scriptIssues + issues
        for name in executor.foreignClocks {
            issues.append(
                "an operator was timed on \(name), not the scheduler's clock: its timers run where the run cannot "
                    + "see them, so its outputs are late or lost (pass `clock: scheduler.clock`; a clock of your own "
                    + "that wraps it conforms to ManualClockWrapper)")
        }
        let unpulled = core.unpulled()
        let recorded = recorder.events.count
        core.state.withLock { $0.tearingDown = true }
        consumer.cancel()
        let idle = await executor.waitUntilIdle(within: settleTimeout)
        if !idle || !recorder.progress.ended {
            issues.append("the consumer did not end when it was cancelled at the end of the run")
        }
        // What the output did in answer to the scheduler's own cancel is no
        // event of the run; an element then is a fault of the pipeline.
        var events = recorder.events
        let late = events[recorded...].filter { event in
            if case .failure = event.kind {
                return false  // a CancellationError, perhaps wrapped: the answer to the cancel
            }
            return true
        }
        if !late.isEmpty {
            issues.append(
                "the output sent \(late.map(\.description).joined(separator: " ")) when the scheduler cancelled "
                    + "the consumer at the end of the run: a cancelled iterator must end without events")
        }
        events.removeSubrange(recorded...)
        return TestRun(events: events, issues: issues, unpulled: unpulled)
    }

    /// Waits until the pipeline settled (see the type's documentation), or
    /// reports that it did not within ``settleTimeout``.
    private func settle<Element: Sendable, Failure: Error>(
        _ recorder: MarbleRecorder<Element, Failure>, _ step: String, _ issues: inout [String]
    ) async -> Bool {
        var last = -1
        var quietRounds = 0
        for _ in 0..<Self.maximumChecks {
            // Every task of the pipeline suspended (only this wait is timed:
            // a driver that the machine does not run for a while is no stall)...
            guard await executor.waitUntilIdle(within: settleTimeout) else {
                let waiting = recorder.progress.idle ? "waits for an element" : "never waited for an element"
                issues.append(
                    "the pipeline did not settle within \(settleTimeout) after \(step): a task of it kept running "
                        + "(the consumer \(waiting))")
                return false
            }
            // ...and nothing outside the executor still changing (a task
            // the pipeline started without the scheduler's preference).
            let progress = recorder.progress
            let activity = core.activity + progress.activity
            if progress.idle && activity == last && executor.isIdle {
                quietRounds += 1
                if quietRounds >= Self.quietRounds {
                    return true
                }
            } else {
                quietRounds = 0
                last = activity
            }
            await Task.yield()
        }
        issues.append(
            "the pipeline did not settle after \(step): work outside the scheduler's executor kept changing "
                + "the inputs, the clock or the output over \(Self.maximumChecks) checks")
        return false
    }
}
