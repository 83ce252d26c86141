public import DeviceRecording
import ROS2
public import Recording

/// Runs a pipeline's derived streams on log time and writes them into a
/// `Recorder`: feed it every decoded device value (``observe(_:)``, which
/// is `DeviceStreamRecorder`'s observer) in log-time order, then call
/// ``finish()`` before closing the recorder.
///
/// The operators are the `Streams` operators' own state machines, driven
/// synchronously by the values' log times rather than by a clock: before a
/// value at instant *t* is handled, every timer due before *t* fires (a timer
/// due exactly at *t* fires after the values at *t*, as `Streams` orders equal
/// instants). At the end, timers due up to the last instant fire, then every
/// operator finishes at that instant (a pending `debounce` value is emitted
/// then). The same input therefore gives the same derived values and
/// instants, live or replayed.
///
/// Not `Sendable`: it belongs to the task that owns the recorder.
///
/// ```swift
/// let engine = try PipelineEngine(pipeline: pipeline, recorder: recorder)
/// let diot = try DeviceStreamRecorder(recorder: recorder, decoder: DiotDecoder(), identifier: id, name: name,
///                                     recordsTypedStream: engine.recordsTypedStream, observer: engine.observe)
/// try diot.record(notification)
/// try engine.finish()
/// try recorder.close()
/// ```
public final class PipelineEngine {
    /// The pipeline it runs.
    public let pipeline: Pipeline
    /// Called with every derived value, recorded or not (for tests and tools).
    public var onDerivedValue: ((DerivedValue) -> Void)?
    /// Derived values produced so far.
    public private(set) var derivedCount = 0
    /// Called on the recording task with each pipeline trigger that fires:
    /// the trigger, the log time of the value that fired it, and that value.
    public var onTrigger: ((PipelineTrigger, UInt64, Double?) throws(RecordingError) -> Void)? {
        get { triggers.fire }
        set { triggers.fire = newValue }
    }

    private let recorder: Recorder?
    private var nodes: [EngineNode] = []
    private var routes: [String: [Route]] = [:]
    private var recordDecisions: [String: Bool] = [:]
    private var now: UInt64?
    private var finished = false
    private var triggers: TriggerWatch

    /// Prepares the derived streams and registers the recorded ones with `recorder`.
    ///
    /// - Parameters:
    ///   - pipeline: A loaded pipeline.
    ///   - recorder: Where derived streams are written; `nil` only computes them.
    /// - Throws: `RecordingError` when a stream cannot be registered.
    public init(pipeline: Pipeline, recorder: Recorder?) throws(RecordingError) {
        self.pipeline = pipeline
        self.recorder = recorder
        self.triggers = TriggerWatch(triggers: pipeline.triggers)
        let order = Self.topologicalOrder(pipeline.derived)
        let position = Dictionary(uniqueKeysWithValues: order.enumerated().map { ($1.name, $0) })
        nodes = order.map { EngineNode(stream: $0) }
        for (index, node) in nodes.enumerated() {
            for (inputIndex, input) in node.stream.source.inputs.enumerated()
            where input.pattern.text.hasPrefix(DerivedStream.topicPrefix) {
                let name = String(input.pattern.text.dropFirst(DerivedStream.topicPrefix.count))
                if let source = position[name] { nodes[source].dependents.append((index, inputIndex)) }
            }
        }
        if let recorder {
            for stream in pipeline.derived where stream.isRecorded {
                guard let index = position[stream.name] else { continue }
                nodes[index].handle = try recorder.addStream(
                    StreamDescriptor(
                        topic: stream.topic, kind: .typed, schema: DerivedValue.schema, unit: stream.unit,
                        isNumeric: true))
            }
        }
    }

    /// Whether the typed stream with this topic is written (the pipeline's
    /// `record` patterns); pass it to `DeviceStreamRecorder`.
    ///
    /// - Parameter topic: A device stream's topic.
    /// - Returns: `true` to write it.
    public func recordsTypedStream(_ topic: String) -> Bool {
        if let known = recordDecisions[topic] { return known }
        let decision = pipeline.records(topic: topic)
        recordDecisions[topic] = decision
        return decision
    }

    /// Handles one decoded device value; pass it to `DeviceStreamRecorder` as its observer.
    ///
    /// - Parameter value: The value, with its topic, schema and log time.
    /// - Throws: `RecordingError` when a derived value cannot be written, or
    ///   when an input's `field` is not a numeric field of the stream's schema.
    public func observe(_ value: ObservedValue) throws(RecordingError) {
        if triggers.isWatching {
            try triggers.observe(
                topic: value.topic, schema: value.schema, numericValue: value.numericValue, payload: value.payload,
                at: value.logTime)
        }
        let routes = try self.routes(for: value.topic, schema: value.schema)
        guard !routes.isEmpty else {
            // Log time moves on with every value, so due timers fire promptly.
            _ = try advanceAndFire(to: value.logTime)
            return
        }
        var fields: [(name: String, value: CDRValue)]?
        var values: [Double?] = []
        for route in routes {
            switch route.extractor {
            case .numeric:
                values.append(value.numericValue ?? 1)
            case .field(let index):
                if fields == nil { fields = (try? route.definition?.decode(value.payload)) ?? [] }
                values.append(fields!.indices.contains(index) ? fields![index].value.number : nil)
            }
        }
        let time = try advanceAndFire(to: value.logTime)
        for (route, number) in zip(routes, values) {
            guard let number else { continue }
            try deliver(number, to: route.node, input: route.input, at: time)
        }
    }

    /// Handles one value of a device stream given directly (no schema: inputs with a `field` ignore it).
    ///
    /// ```swift
    /// try engine.ingest(topic: "/diot/d_9F3A0C11/acc_x", value: 0.98, at: 1_700_000_000_000_000_000)
    /// ```
    ///
    /// - Parameters:
    ///   - topic: The device stream's topic.
    ///   - value: Its numeric value.
    ///   - time: Its log time, nanoseconds since the Unix epoch.
    /// - Throws: `RecordingError` when a derived value cannot be written.
    public func ingest(topic: String, value: Double, at time: UInt64) throws(RecordingError) {
        if triggers.isWatching {
            try triggers.observe(topic: topic, schema: nil, numericValue: value, payload: [], at: time)
        }
        let routes = try self.routes(for: topic, schema: nil)
        let time = try advanceAndFire(to: time)
        for route in routes where route.extractor == .numeric {
            try deliver(value, to: route.node, input: route.input, at: time)
        }
    }

    /// Ends the input: timers due up to the last log time fire, then every
    /// operator finishes at that instant (pending values are emitted then).
    /// Call it once, before closing the recorder; later calls do nothing.
    ///
    /// - Throws: `RecordingError` when a derived value cannot be written.
    public func finish() throws(RecordingError) {
        guard !finished else { return }
        finished = true
        guard let end = now else { return }
        try fireTimers(through: end)
        for index in nodes.indices {
            for stage in nodes[index].stages.indices {
                for emitted in nodes[index].stages[stage].finish(at: end) {
                    try push(emitted.value, node: index, stage: stage + 1, at: emitted.time)
                }
            }
        }
    }

    // MARK: - Flow

    private func advance(to time: UInt64) {
        if now.map({ time > $0 }) ?? true { now = time }
    }

    /// Moves log time forward (never back: a late value counts at the
    /// latest instant seen) and fires the timers due before it.
    private func advanceAndFire(to time: UInt64) throws(RecordingError) -> UInt64 {
        advance(to: time)
        let current = now!
        if current > 0 { try fireTimers(through: current - 1) }
        return current
    }

    /// Fires every timer due at or before `limit`, earliest first (ties: the
    /// earlier stream, then the earlier operator).
    private func fireTimers(through limit: UInt64) throws(RecordingError) {
        while true {
            var earliest: (node: Int, stage: Int, due: UInt64)?
            for (nodeIndex, node) in nodes.enumerated() {
                for (stageIndex, stage) in node.stages.enumerated() {
                    if let due = stage.deadline, due <= limit, due < (earliest?.due ?? .max) {
                        earliest = (nodeIndex, stageIndex, due)
                    }
                }
            }
            guard let earliest else { return }
            for emitted in nodes[earliest.node].stages[earliest.stage].fire() {
                try push(emitted.value, node: earliest.node, stage: earliest.stage + 1, at: emitted.time)
            }
        }
    }

    /// A value delivered to one input of a derived stream.
    private func deliver(_ value: Double, to nodeIndex: Int, input: Int, at time: UInt64) throws(RecordingError) {
        try run(.deliver(value, node: nodeIndex, input: input, time: time))
    }

    /// A value entering one stage of a derived stream (the stage count: the stream's output).
    private func push(_ value: Double, node nodeIndex: Int, stage: Int, at time: UInt64) throws(RecordingError) {
        try run(.push(value, node: nodeIndex, stage: stage, time: time))
    }

    /// Carries `first` and everything it causes through the operators and
    /// dependent streams, depth first: each emitted value goes all the way
    /// (down its stream, then into its dependents, in order) before the next
    /// one. An explicit work list rather than recursion, so a stream with tens
    /// of thousands of operators or a chain of as many streams cannot exhaust
    /// the stack; the order is the recursive walk's preorder.
    private func run(_ first: EngineWork) throws(RecordingError) {
        var pending = [first]
        while let work = pending.popLast() {
            switch work {
            case .deliver(let value, let nodeIndex, let input, let time):
                let node = nodes[nodeIndex]
                guard let expression = node.expression else {
                    pending.append(.push(value, node: nodeIndex, stage: 0, time: time))
                    continue
                }
                node.latest[input] = value
                guard node.latest.allSatisfy({ $0 != nil }) else { continue }
                pending.append(
                    .push(expression.evaluate(node.latest.map { $0! }), node: nodeIndex, stage: 0, time: time))
            case .push(let value, let nodeIndex, let stage, let time):
                let node = nodes[nodeIndex]
                if stage < node.stages.count {
                    // Reversed onto the stack so the first emitted value is carried first.
                    for emitted in node.stages[stage].receive(value, at: time).reversed() {
                        pending.append(.push(emitted.value, node: nodeIndex, stage: stage + 1, time: emitted.time))
                    }
                    continue
                }
                derivedCount += 1
                if let handle = node.handle, let recorder {
                    try recorder.write(handle, logTime: time, payload: DerivedValue.encode(value), numericValue: value)
                }
                onDerivedValue?(
                    DerivedValue(name: node.stream.name, topic: node.stream.topic, value: value, logTime: time))
                if triggers.isWatching { try triggers.observeDerived(topic: node.stream.topic, value: value, at: time) }
                for (dependent, input) in node.dependents.reversed() {
                    pending.append(.deliver(value, node: dependent, input: input, time: time))
                }
            }
        }
    }

    // MARK: - Routing

    /// The inputs a device topic feeds, found once per topic.
    private func routes(for topic: String, schema: MessageSchema?) throws(RecordingError) -> [Route] {
        if let known = routes[topic] { return known }
        var found: [Route] = []
        for (nodeIndex, node) in nodes.enumerated() {
            for (inputIndex, input) in node.stream.source.inputs.enumerated()
            where !input.pattern.text.hasPrefix(DerivedStream.topicPrefix) && input.pattern.matches(topic) {
                guard let field = input.field else {
                    found.append(Route(node: nodeIndex, input: inputIndex, extractor: .numeric, definition: nil))
                    continue
                }
                guard let schema else {
                    found.append(Route(node: nodeIndex, input: inputIndex, extractor: .field(-1), definition: nil))
                    continue
                }
                let (index, definition) = try Self.numericField(field, of: topic, schema: schema, at: input.location)
                found.append(
                    Route(node: nodeIndex, input: inputIndex, extractor: .field(index), definition: definition))
            }
        }
        routes[topic] = found
        return found
    }

    /// Where `field` is in the messages of `topic`, and their definition.
    ///
    /// - Throws: `RecordingError` naming `location` when the schema cannot
    ///   be read or the field is not one of its numeric fields.
    static func numericField(
        _ field: String, of topic: String, schema: MessageSchema, at location: SourceLocation
    ) throws(RecordingError) -> (index: Int, definition: ROS2MessageDefinition) {
        let definition: ROS2MessageDefinition
        do {
            definition = try ROS2MessageDefinition(parsing: schema.text)
        } catch {
            throw RecordingError(
                .invalidConfiguration,
                PipelineError(
                    .runtime, at: location, "cannot read schema \(schema.name) of \(topic): \(error.message)"
                ).description)
        }
        let numeric = definition.fields.filter { $0.arrayLength == nil && $0.type.isNumeric }.map(\.name)
        guard let index = definition.fields.firstIndex(where: { $0.name == field }), numeric.contains(field) else {
            throw RecordingError(
                .invalidConfiguration,
                PipelineError(
                    .runtime, at: location,
                    "field '\(field)' is not a numeric field of \(topic) (\(schema.name); numeric fields: "
                        + (numeric.isEmpty ? "none" : numeric.joined(separator: ", ")) + ")"
                ).description)
        }
        return (index, definition)
    }

    /// The derived streams ordered so each comes after the streams it reads
    /// (declaration order otherwise: the earliest-declared stream whose inputs
    /// are placed goes next); the loader has ruled out cycles. Linear in the
    /// streams and their inputs, up to the logarithm of a heap.
    static func topologicalOrder(_ streams: [DerivedStream]) -> [DerivedStream] {
        let index = Dictionary(streams.enumerated().map { ($1.topic, $0) }, uniquingKeysWith: { first, _ in first })
        var waiting = Array(repeating: 0, count: streams.count)
        var readers = Array(repeating: [Int](), count: streams.count)
        for (reader, stream) in streams.enumerated() {
            for input in stream.source.inputs {
                guard input.pattern.text.hasPrefix(DerivedStream.topicPrefix), let source = index[input.pattern.text]
                else { continue }
                waiting[reader] += 1
                readers[source].append(reader)
            }
        }
        var ready = MinimumHeap(streams.indices.filter { waiting[$0] == 0 })
        var order: [DerivedStream] = []
        order.reserveCapacity(streams.count)
        while let next = ready.popMinimum() {
            order.append(streams[next])
            for reader in readers[next] {
                waiting[reader] -= 1
                if waiting[reader] == 0 { ready.insert(reader) }
            }
        }
        // A cycle the loader would have refused: the rest in declaration order.
        if order.count < streams.count {
            order += streams.indices.filter { waiting[$0] > 0 }.map { streams[$0] }
        }
        return order
    }
}

/// The smallest of a changing set of integers, for ``PipelineEngine/topologicalOrder(_:)``.
private struct MinimumHeap {
    private var items: [Int] = []

    init(_ initial: [Int]) {
        for item in initial { insert(item) }
    }

    mutating func insert(_ item: Int) {
        items.append(item)
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard items[child] < items[parent] else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    mutating func popMinimum() -> Int? {
        guard let last = items.popLast() else { return nil }
        guard !items.isEmpty else { return last }
        let minimum = items[0]
        items[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < items.count, items[left] < items[smallest] { smallest = left }
            if right < items.count, items[right] < items[smallest] { smallest = right }
            guard smallest != parent else { return minimum }
            items.swapAt(parent, smallest)
            parent = smallest
        }
    }
}

/// One step of the engine's work list: a value for a stream's input, or for one of its stages.
private enum EngineWork {
    case deliver(Double, node: Int, input: Int, time: UInt64)
    case push(Double, node: Int, stage: Int, time: UInt64)
}

/// Where a device topic's values go: a derived stream's input, and how the value is read.
private struct Route {
    enum Extractor: Equatable {
        /// The stream's numeric value (1 for a stream without one).
        case numeric
        /// A field of the message, by index in the schema.
        case field(Int)
    }
    let node: Int
    let input: Int
    let extractor: Extractor
    let definition: ROS2MessageDefinition?
}

/// A derived stream at run time: its operators' stages and its latest input values.
private final class EngineNode {
    let stream: DerivedStream
    let stages: [any PipelineStage]
    let expression: ValueExpression?
    var latest: [Double?]
    var handle: StreamHandle?
    var dependents: [(node: Int, input: Int)] = []

    init(stream: DerivedStream) {
        self.stream = stream
        self.stages = stream.operators.map { $0.makeStage() }
        if case .combineLatest(let named, let expression) = stream.source {
            self.expression = expression
            self.latest = Array(repeating: nil, count: named.count)
        } else {
            self.expression = nil
            self.latest = []
        }
    }
}

extension ROS2MessageDefinition.Primitive {
    /// Whether values of this type are numbers (booleans count as 0 and 1).
    var isNumeric: Bool {
        switch self.rawValue {
        case "string", "wstring", "builtin_interfaces/Time": false
        default: true
        }
    }
}
