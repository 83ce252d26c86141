import Streams

/// One value of a derived stream at its log time (nanoseconds since the Unix epoch).
struct TimedValue: Equatable {
    var value: Double
    var time: UInt64
}

/// One operator of a derived stream, run synchronously on log time: values
/// arrive with their instants, and the engine fires the stage's timer when
/// log time passes its deadline.
protocol PipelineStage: AnyObject {
    /// The instant the stage's armed timer is due, if one is armed.
    var deadline: UInt64? { get }
    /// A value at `time`; returns what the stage emits at once.
    func receive(_ value: Double, at time: UInt64) -> [TimedValue]
    /// The armed timer is due: returns what the stage emits at the deadline.
    func fire() -> [TimedValue]
    /// The input ended at `time`: returns what the stage emits then.
    func finish(at time: UInt64) -> [TimedValue]
}

/// `map`: `value * scale + offset`, at the input's instant.
final class MapStage: PipelineStage {
    let scale: Double
    let offset: Double
    init(scale: Double, offset: Double) {
        self.scale = scale
        self.offset = offset
    }
    var deadline: UInt64? { nil }
    func receive(_ value: Double, at time: UInt64) -> [TimedValue] {
        [TimedValue(value: value * scale + offset, time: time)]
    }
    func fire() -> [TimedValue] { [] }
    func finish(at time: UInt64) -> [TimedValue] { [] }
}

/// `filter`: values in `min...max` pass at their instant.
final class FilterStage: PipelineStage {
    let minimum: Double?
    let maximum: Double?
    init(minimum: Double?, maximum: Double?) {
        self.minimum = minimum
        self.maximum = maximum
    }
    var deadline: UInt64? { nil }
    func receive(_ value: Double, at time: UInt64) -> [TimedValue] {
        if let minimum, !(value >= minimum) { return [] }
        if let maximum, !(value <= maximum) { return [] }
        return [TimedValue(value: value, time: time)]
    }
    func fire() -> [TimedValue] { [] }
    func finish(at time: UInt64) -> [TimedValue] { [] }
}

/// `removeDuplicates`: a value equal to the previous input is dropped.
final class RemoveDuplicatesStage: PipelineStage {
    private var previous: Double?
    var deadline: UInt64? { nil }
    func receive(_ value: Double, at time: UInt64) -> [TimedValue] {
        defer { previous = value }
        return previous == value ? [] : [TimedValue(value: value, time: time)]
    }
    func fire() -> [TimedValue] { [] }
    func finish(at time: UInt64) -> [TimedValue] { [] }
}

/// `prefix(n)`: the first `n` values, then nothing.
final class PrefixStage: PipelineStage {
    private var remaining: Int
    init(count: Int) { remaining = count }
    var deadline: UInt64? { nil }
    func receive(_ value: Double, at time: UInt64) -> [TimedValue] {
        guard remaining > 0 else { return [] }
        remaining -= 1
        return [TimedValue(value: value, time: time)]
    }
    func fire() -> [TimedValue] { [] }
    func finish(at time: UInt64) -> [TimedValue] { [] }
}

/// `chunked(count:)`: every `count` values reduce to one value at the
/// instant of the chunk's last value; a partial chunk is emitted at the finish.
final class ChunksOfCountStage: PipelineStage {
    let count: Int
    let reduction: DerivedStream.Reduction
    private var chunk: [Double] = []
    init(count: Int, reduction: DerivedStream.Reduction) {
        self.count = count
        self.reduction = reduction
    }
    var deadline: UInt64? { nil }
    func receive(_ value: Double, at time: UInt64) -> [TimedValue] {
        chunk.append(value)
        guard chunk.count >= count else { return [] }
        defer { chunk.removeAll(keepingCapacity: true) }
        return reduction.reduce(chunk).map { [TimedValue(value: $0, time: time)] } ?? []
    }
    func fire() -> [TimedValue] { [] }
    func finish(at time: UInt64) -> [TimedValue] {
        defer { chunk = [] }
        return reduction.reduce(chunk).map { [TimedValue(value: $0, time: time)] } ?? []
    }
}

/// A time-based operator (`debounce`, `throttle`, `sample`, `chunked(every:)`):
/// the `Streams` operator's own state machine, driven by log time instead of
/// a clock. The machine starts at the first value's instant.
final class ClockedStage<Machine: ClockedStateMachine>: PipelineStage
where Machine.Input == Double, Machine.Instant == LogInstant, Machine.UpstreamFailure == Never {
    private var machine: Machine
    private let output: (Machine.Output) -> Double?
    private var started = false
    private var ended = false
    private(set) var deadline: UInt64?

    init(_ machine: Machine, output: @escaping (Machine.Output) -> Double?) {
        self.machine = machine
        self.output = output
    }

    func receive(_ value: Double, at time: UInt64) -> [TimedValue] {
        guard !ended else { return [] }
        // Timers due before this instant fire first; one due at this very
        // instant fires after the value (Streams' rule for equal instants).
        var emitted = fireDue(before: time)
        if !started {
            started = true
            apply(machine.start(at: LogInstant(time)), at: time, into: &emitted)
        }
        apply(machine.receive(value, at: LogInstant(time)), at: time, into: &emitted)
        return emitted
    }

    func fire() -> [TimedValue] {
        guard let due = deadline else { return [] }
        deadline = nil
        var emitted: [TimedValue] = []
        apply(machine.timerFired(at: LogInstant(due)), at: due, into: &emitted)
        return emitted
    }

    func finish(at time: UInt64) -> [TimedValue] {
        guard !ended else { return [] }
        var emitted = fireDue(before: time + 1)
        apply(machine.finish(at: LogInstant(time)), at: time, into: &emitted)
        ended = true
        deadline = nil
        return emitted
    }

    private func fireDue(before time: UInt64) -> [TimedValue] {
        var emitted: [TimedValue] = []
        while let due = deadline, due < time {
            emitted += fire()
        }
        return emitted
    }

    private func apply(_ action: Machine.Action, at time: UInt64, into emitted: inout [TimedValue]) {
        switch action.outputs {
        case .none: break
        case .one(let value): if let number = output(value) { emitted.append(TimedValue(value: number, time: time)) }
        case .many(let values):
            for value in values {
                if let number = output(value) { emitted.append(TimedValue(value: number, time: time)) }
            }
        }
        switch action.timer {
        case .keep: break
        case .arm(let instant): deadline = instant.nanoseconds
        case .cancel: deadline = nil
        }
        if action.end != nil {
            ended = true
            deadline = nil
        }
    }
}

extension DerivedStream.Operator {
    /// A fresh stage running this operator.
    func makeStage() -> any PipelineStage {
        switch self {
        case .map(let scale, let offset): MapStage(scale: scale, offset: offset)
        case .filter(let minimum, let maximum): FilterStage(minimum: minimum, maximum: maximum)
        case .removeDuplicates: RemoveDuplicatesStage()
        case .prefix(let count): PrefixStage(count: count)
        case .debounce(let interval):
            ClockedStage(DebounceStateMachine<Double, Never, LogInstant>(interval: interval)) { $0 }
        case .throttle(let interval, let latest):
            ClockedStage(ThrottleStateMachine<Double, Never, LogInstant>(interval: interval, latest: latest)) { $0 }
        case .sample(let interval):
            ClockedStage(SampleStateMachine<Double, Never, LogInstant>(interval: interval)) { $0 }
        case .chunked(let count?, nil, let reduction):
            ChunksOfCountStage(count: count, reduction: reduction)
        case .chunked(let count, let every, let reduction):
            ClockedStage(
                ChunkedByTimeStateMachine<Double, Never, LogInstant>(interval: every ?? .seconds(1), count: count)
            ) {
                reduction.reduce($0)
            }
        }
    }
}
