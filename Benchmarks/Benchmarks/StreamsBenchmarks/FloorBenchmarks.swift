import Benchmark
import Synchronization

/// What the waits of a one-element buffer cost on this machine, measured in
/// the same run as the operators: the floor under the rows whose consumer
/// must wait for its producer and whose producer must wait for its consumer
/// (`share()` is `.bounded(1)`; swift-async-algorithms' zip buffers one
/// element per base).
///
/// `one-slot hand-off 50k` is the least code with that semantics, written
/// directly with continuations and one lock: a producer task hands each
/// element to the waiting consumer or into a single slot, and waits while
/// the slot is full; the consumer takes from the slot (resuming a waiting
/// producer) or waits. No operator, no state machine, no cancellation
/// handling. From the main actor every wait of the consumer ends with a job
/// of the main actor's executor: this is what a hand-off costs when each
/// side suspends as soon as it has to wait. A peer that suspends so cannot
/// go below it; ours goes below it where a consumer on an actor and its
/// producer spin briefly instead (`share()` and `replay(_:)`, see
/// `HandOffSpin` in Streams).
func floorBenchmarks() {
    let count = 50_000
    Benchmark("one-slot hand-off 50k, floor, nonisolated", configuration: combiningConfiguration) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(await handOff(count)) }
    }
    Benchmark("one-slot hand-off 50k, floor, main actor", configuration: combiningConfiguration) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(await handOffOnMainActor(count)) }
    }
}

/// One element in a slot, or handed straight to a waiting consumer.
final class OneSlot: Sendable {
    struct State {
        var slot: Int?
        var finished = false
        var consumer: UnsafeContinuation<Int?, Never>?
        var producer: UnsafeContinuation<Void, Never>?
    }

    let state = Mutex(State())

    /// Hands `element` over; waits while the slot is full.
    func send(_ element: Int) async {
        while true {
            let (placed, consumer) = state.withLock { state -> (Bool, UnsafeContinuation<Int?, Never>?) in
                if let consumer = state.consumer.take() { return (true, consumer) }
                guard state.slot == nil else { return (false, nil) }
                state.slot = element
                return (true, nil)
            }
            if placed {
                consumer?.resume(returning: element)
                return
            }
            await withUnsafeContinuation { (producer: UnsafeContinuation<Void, Never>) in
                let full = state.withLock { state in
                    guard state.slot != nil, state.consumer == nil else { return false }
                    state.producer = producer
                    return true
                }
                if !full { producer.resume() }
            }
        }
    }

    /// Ends the stream once the slot is drained.
    func finish() {
        let consumer = state.withLock { state in
            state.finished = true
            return state.slot == nil ? state.consumer.take() : nil
        }
        consumer?.resume(returning: nil)
    }

    /// The next element, or `nil` at the end; waits on `actor`.
    func receive(isolation actor: isolated (any Actor)? = #isolation) async -> Int? {
        if let (element, producer) = state.withLock({ state in take(&state) }) {
            producer?.resume()
            return element
        }
        return await withUnsafeContinuation(isolation: actor) { (consumer: UnsafeContinuation<Int?, Never>) in
            let ready = state.withLock { state -> (Int?, UnsafeContinuation<Void, Never>?)? in
                if let ready = take(&state) { return ready }
                state.consumer = consumer
                return nil
            }
            if let (element, producer) = ready {
                producer?.resume()
                consumer.resume(returning: element)
            }
        }
    }

    /// The slot's element (and the producer to resume), the end, or nil to wait.
    private func take(_ state: inout State) -> (Int?, UnsafeContinuation<Void, Never>?)? {
        if let element = state.slot.take() { return (element, state.producer.take()) }
        return state.finished ? (nil, nil) : nil
    }

    /// A producer task sending 0..<count, then the end.
    func startProducing(_ count: Int) {
        Task {
            for element in 0..<count { await send(element) }
            finish()
        }
    }
}

func handOff(_ count: Int) async -> Drained {
    let exchange = OneSlot()
    exchange.startProducing(count)
    var drained = Drained()
    while let element = await exchange.receive(isolation: nil) { drained.add(element) }
    return drained
}

@MainActor func handOffOnMainActor(_ count: Int) async -> Drained {
    let exchange = OneSlot()
    exchange.startProducing(count)
    var drained = Drained()
    while let element = await exchange.receive() { drained.add(element) }
    return drained
}
