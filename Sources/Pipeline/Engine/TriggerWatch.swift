import ROS2
import Recording

/// The pipeline engine's view of its triggers: which triggers each topic
/// feeds (found once per topic), and per trigger and topic whether its
/// condition held at the last value, so a `when:` trigger fires on the
/// rising edge only.
struct TriggerWatch {
    private struct Route {
        var trigger: Int
        /// The field read, with the messages' definition; `nil` reads the numeric value.
        var field: (index: Int, definition: ROS2MessageDefinition)?
    }

    private struct Edge: Hashable {
        var trigger: Int
        var topic: String
    }

    let triggers: [PipelineTrigger]
    var fire: ((PipelineTrigger, UInt64, Double?) throws(RecordingError) -> Void)?
    private var routes: [String: [Route]] = [:]
    private var held: [Edge: Bool] = [:]

    init(triggers: [PipelineTrigger]) { self.triggers = triggers }

    /// Whether any trigger is declared.
    var isWatching: Bool { !triggers.isEmpty }

    /// A device stream's value: its numeric value, and its message when
    /// `schema` is known (a field read without one is NaN: never true).
    mutating func observe(
        topic: String, schema: MessageSchema?, numericValue: Double?, payload: [UInt8], at time: UInt64
    ) throws(RecordingError) {
        let routes = try self.routes(for: topic, schema: schema)
        guard !routes.isEmpty else { return }
        for route in routes {
            let trigger = triggers[route.trigger]
            switch trigger.condition {
            case .on:
                try fire?(trigger, time, numericValue)
            case .when(let input, let comparison, let threshold):
                var number = numericValue ?? 1
                if let (index, definition) = route.field {
                    let fields = (try? definition.decode(payload)) ?? []
                    number = fields.indices.contains(index) ? fields[index].value.number ?? .nan : .nan
                } else if input.field != nil {
                    number = .nan
                }
                try edge(
                    route.trigger, topic: topic, holds: comparison.holds(number, threshold), value: number, at: time)
            }
        }
    }

    /// A derived stream's value.
    mutating func observeDerived(topic: String, value: Double, at time: UInt64) throws(RecordingError) {
        for (index, trigger) in triggers.enumerated() {
            switch trigger.condition {
            case .on(let patterns) where patterns.contains(where: { $0.text == topic }):
                try fire?(trigger, time, value)
            case .when(let input, let comparison, let threshold) where input.pattern.text == topic:
                try edge(index, topic: topic, holds: comparison.holds(value, threshold), value: value, at: time)
            default:
                continue
            }
        }
    }

    private mutating func edge(
        _ index: Int, topic: String, holds: Bool, value: Double, at time: UInt64
    ) throws(RecordingError) {
        let key = Edge(trigger: index, topic: topic)
        let before = held[key] ?? false
        held[key] = holds
        if holds, !before { try fire?(triggers[index], time, value) }
    }

    /// The triggers a device topic feeds.
    private mutating func routes(for topic: String, schema: MessageSchema?) throws(RecordingError) -> [Route] {
        if let known = routes[topic] { return known }
        var found: [Route] = []
        for (index, trigger) in triggers.enumerated() {
            switch trigger.condition {
            case .on(let patterns):
                if patterns.contains(where: {
                    !$0.text.hasPrefix(DerivedStream.topicPrefix) && $0.matches(topic)
                }) {
                    found.append(Route(trigger: index, field: nil))
                }
            case .when(let input, _, _):
                guard !input.pattern.text.hasPrefix(DerivedStream.topicPrefix), input.pattern.matches(topic) else {
                    continue
                }
                var field: (index: Int, definition: ROS2MessageDefinition)?
                if let name = input.field, let schema {
                    field = try PipelineEngine.numericField(name, of: topic, schema: schema, at: input.location)
                }
                found.append(Route(trigger: index, field: field))
            }
        }
        routes[topic] = found
        return found
    }
}
