import Locking

/// A consumer of a tuple operator waiting in `next`: resumed with the
/// bases' values (in base order), `nil` for the end, or the failure.
typealias TupleConsumerContinuation<Failure: Error> = UnsafeContinuation<Result<[any Sendable]?, Failure>, Never>

/// A base's producer waiting until its value was used: resumed with `true`
/// to go on, `false` to stop.
typealias TupleProducerContinuation = UnsafeContinuation<Bool, Never>

/// What a tuple state machine asks the caller to do when a base delivers.
enum TupleDeliverAction<Failure: Error> {
    /// Resume the consumer (if given) with these values, and these producers with `true`.
    case proceed(consumer: (TupleConsumerContinuation<Failure>, [any Sendable])?, producers: [TupleProducerContinuation])
    /// The value is kept; the producer stays suspended.
    case wait
    /// The producer must stop; the value is dropped.
    case stop(TupleProducerContinuation)
}

/// What a tuple state machine asks the caller to do on `next`.
enum TupleNextAction<Failure: Error> {
    /// Return this result; resume these producers with `true`. With `end`,
    /// the iteration ended: cancel the bases.
    case resume(Result<[any Sendable]?, Failure>, producers: [TupleProducerContinuation], end: Bool)
    /// The consumer is parked; resume these producers (their updates were
    /// applied without making a tuple) with `true`.
    case suspended(producers: [TupleProducerContinuation])
}

/// What ending a base or the iteration asks the caller to do.
struct TupleEndAction<Failure: Error> {
    var consumer: (TupleConsumerContinuation<Failure>, Result<[any Sendable]?, Failure>)?
    var stoppedProducers: [TupleProducerContinuation] = []
    var cancelTasks = false
}

/// The state machine of an operator that combines the values of several
/// bases into tuples (``CombineLatestStateMachine``, ``ZipStateMachine``).
///
/// Values are type-erased to `any Sendable` in base order; the publisher
/// casts them back to its tuple type.
protocol TupleStateMachine: SendableMetatype {
    associatedtype Failure: Error
    init(count: Int)
    mutating func start() -> Bool
    mutating func deliver(_ base: Int, _ value: any Sendable, _ continuation: TupleProducerContinuation)
        -> TupleDeliverAction<Failure>
    mutating func next(_ continuation: TupleConsumerContinuation<Failure>?) -> TupleNextAction<Failure>?
    mutating func baseFinished(_ base: Int) -> TupleEndAction<Failure>
    mutating func baseFailed(_ base: Int, _ error: Failure) -> TupleEndAction<Failure>
    mutating func cancel() -> TupleEndAction<Failure>
}

/// The shared state of one iteration of a tuple operator: its
/// lock-protected state machine and the task that runs one producer child
/// task per base. `CombineLatestStorage` and `ZipStorage` are this class
/// with their state machines.
///
/// The task starts on the first `next`; cancelling the consumer, dropping
/// the iterator, a failure or the end cancels it and every base.
/// Continuations are resumed only after the lock is released.
final class TupleStorage<Machine: TupleStateMachine>: Sendable {
    typealias Failure = Machine.Failure
    /// Iterates one base, delivering into the storage as base `index`.
    typealias Runner = @Sendable (TupleStorage, Int) async -> Void

    private let state: Locked<Machine>
    private let runners: [Runner]
    private let task = TaskHandle()

    init(runners: [Runner]) {
        self.runners = runners
        state = Locked(Machine(count: runners.count))
    }

    /// A runner that iterates `base`, delivering each element and waiting
    /// until it was used, then reports the finish or the failure.
    static func runner<Base: Publisher & Sendable>(_ base: Base) -> Runner
    where Base.Element: Sendable, Base.Failure == Failure {
        { storage, index in
            var iterator = base.makeAsyncIterator()
            do throws(Failure) {
                while let element = try await iterator.next(isolation: nil) {
                    guard await storage.deliver(index, element) else {
                        return
                    }
                }
                storage.perform(storage.state.withLock { $0.baseFinished(index) })
            } catch {
                storage.perform(storage.state.withLock { $0.baseFailed(index, error) })
            }
        }
    }

    private func deliver(_ index: Int, _ value: any Sendable) async -> Bool {
        await withUnsafeContinuation { (continuation: TupleProducerContinuation) in
            switch state.withLock({ $0.deliver(index, value, continuation) }) {
            case .proceed(let consumer, let producers):
                if let (consumer, values) = consumer {
                    consumer.resume(returning: .success(values))
                }
                for producer in producers {
                    producer.resume(returning: true)
                }
            case .wait:
                break
            case .stop(let producer):
                producer.resume(returning: false)
            }
        }
    }

    private func perform(_ action: TupleEndAction<Failure>) {
        if action.cancelTasks {
            task.cancel()
        }
        for producer in action.stoppedProducers {
            producer.resume(returning: false)
        }
        if let (consumer, result) = action.consumer {
            consumer.resume(returning: result)
        }
    }

    /// Ends the iteration: the consumer gets `nil`, every base stops.
    func cancel() {
        perform(state.withLock { $0.cancel() })
    }

    private func startIfNeeded() {
        guard state.withLock({ $0.start() }) else {
            return
        }
        let producers = runners
        task.set(
            Task {
                await withDiscardingTaskGroup { group in
                    for (index, runner) in producers.enumerated() {
                        group.addTask { await runner(self, index) }
                    }
                }
            }
        )
    }

    /// The consumer's next event: the values of a tuple, the end (`nil`) or the failure.
    func next(isolation actor: isolated (any Actor)?) async -> Result<[any Sendable]?, Failure> {
        if Task.isCancelled {
            cancel()
            return .success(nil)
        }
        startIfNeeded()
        if let action = state.withLock({ $0.next(nil) }) {
            return handle(action)
        }
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: TupleConsumerContinuation<Failure>) in
                guard let action = state.withLock({ $0.next(continuation) }) else {
                    continuation.resume(returning: .success(nil))
                    return
                }
                if case .suspended(let producers) = action {
                    for producer in producers {
                        producer.resume(returning: true)
                    }
                    return
                }
                continuation.resume(returning: handle(action))
            }
        } onCancel: {
            self.cancel()
        }
    }

    private func handle(_ action: TupleNextAction<Failure>) -> Result<[any Sendable]?, Failure> {
        switch action {
        case .resume(let result, let producers, let end):
            if end {
                task.cancel()
            }
            for producer in producers {
                producer.resume(returning: true)
            }
            return result
        case .suspended:
            preconditionFailure("handled by the caller")
        }
    }
}

/// The storage of a combine-latest iteration.
typealias CombineLatestStorage<Failure: Error> = TupleStorage<CombineLatestStateMachine<Failure>>

/// The iterator state shared by the tuple publishers: the iteration token,
/// and the conversion of the erased values into the publisher's tuple.
struct TupleIteration<Machine: TupleStateMachine> {
    private var token: IterationToken<TupleStorage<Machine>>?

    init(storage: TupleStorage<Machine>) {
        token = IterationToken(storage) { $0.cancel() }
    }

    /// The next values, in base order, or `nil` once the iteration ended.
    mutating func next(isolation actor: isolated (any Actor)?) async throws(Machine.Failure) -> [any Sendable]? {
        guard let current = token else {
            return nil
        }
        switch await current.storage.next(isolation: actor) {
        case .success(let values?):
            return values
        case .success(nil):
            token = nil
            return nil
        case .failure(let error):
            token = nil
            throw error
        }
    }
}
