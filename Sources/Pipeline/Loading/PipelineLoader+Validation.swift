import Devices
import Families
import ROS2
import Recording
import Yams

/// Topic patterns checked against what the declared devices can produce,
/// and derived streams checked for cycles.
extension PipelineLoader {
    /// A topic pattern that some declared device (or derived stream) can produce.
    func pattern(
        _ node: Node, _ what: String, devices: [PipelineDevice], derivedNames: [String]
    )
        throws(PipelineError) -> TopicPattern
    {
        try pattern(text: try text(node, what), at: location(node), devices: devices, derivedNames: derivedNames)
    }

    /// A topic pattern written at `at`, checked as ``pattern(_:_:devices:derivedNames:)`` checks one.
    func pattern(
        text: String, at: SourceLocation, devices: [PipelineDevice], derivedNames: [String]
    ) throws(PipelineError) -> TopicPattern {
        let pattern = TopicPattern(text)
        guard text.hasPrefix("/") else {
            throw PipelineError(
                .invalidValue, at: at,
                "topic pattern '\(text)' must start with '/' (expected /<family>/<device>/<stream>, e.g. /diot/*/acc_x)"
            )
        }
        if text.hasPrefix(DerivedStream.topicPrefix) {
            let name = String(text.dropFirst(DerivedStream.topicPrefix.count))
            guard derivedNames.contains(name) else {
                let known =
                    derivedNames.isEmpty ? "none declared" : "expected one of: " + derivedNames.joined(separator: ", ")
                throw PipelineError(
                    .unresolvedTopic, at: at,
                    "\(text) names no derived stream (\(known)); derived inputs name one stream, without wildcards")
            }
            return pattern
        }
        let levels = text.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        if !text.contains("**") {
            guard levels.count >= 3 else {
                throw PipelineError(
                    .invalidValue, at: at,
                    "topic pattern '\(text)' is too short (expected /<family>/<device>/<stream>, e.g. /diot/*/acc_x)")
            }
        }
        if produces(pattern, levels: levels, devices: devices) { return pattern }
        let families = Set(devices.map(\.family))
        let matchingFamilies = self.families.families.filter {
            families.contains($0) && glob(levels.first ?? "", $0.rawValue)
        }
        if matchingFamilies.isEmpty {
            throw PipelineError(
                .unresolvedTopic, at: at,
                "topic pattern '\(text)' matches no declared device's family (declared: "
                    + devices.map(\.family.rawValue).uniqued.joined(separator: ", ") + ")")
        }
        let examples = matchingFamilies.map { "\($0.rawValue) streams: \(streamExamples(of: $0))" }
        throw PipelineError(
            .unresolvedTopic, at: at,
            "topic pattern '\(text)' matches no stream the declared devices produce ("
                + examples.joined(separator: "; ") + ")")
    }

    /// Whether a device of the pipeline can produce a topic the pattern matches.
    private func produces(_ pattern: TopicPattern, levels: [String], devices: [PipelineDevice]) -> Bool {
        for device in devices {
            let family = device.family
            let identifier: String? =
                if case .simulated(let seed, let scenario, let rate) = device.source {
                    simulatedDevice(family, seed: seed, scenario: scenario, rate: rate).map {
                        ROS2Name.deviceToken($0.identifier)
                    }
                } else {
                    nil
                }
            let streams = (families[family]?.streamNames ?? []).map(ROS2Name.streamLevels) + ["raw/c_0000"]
            if pattern.text.contains("**") {
                // Whole-topic matching, with a stand-in for an identifier not known yet.
                let id = identifier ?? "DEVICE"
                if streams.contains(where: { pattern.matches("/\(family.rawValue)/\(id)/\($0)") }) { return true }
                continue
            }
            guard glob(levels[0], family.rawValue) else { continue }
            if let identifier, !glob(levels[1], identifier) { continue }
            let rest = levels[2...].joined(separator: "/")
            if levels.count == 4, glob(levels[2], "raw") { return true }
            if streams.contains(where: { glob(rest, $0) }) { return true }
        }
        return false
    }

    /// Whether one level (or run of levels) of a pattern matches `text`, by `TopicPattern`'s rule.
    private func glob(_ pattern: String, _ text: String) -> Bool {
        TopicPattern(pattern).matches(text)
    }

    /// Derived streams that depend on each other in a cycle are an error at
    /// the input that closes it.
    func checkCycles(_ derived: [DerivedStream]) throws(PipelineError) {
        let byName = Dictionary(uniqueKeysWithValues: derived.map { ($0.name, $0) })
        func dependencies(_ stream: DerivedStream) -> [(name: String, input: DerivedStream.Input)] {
            stream.source.inputs.compactMap { input in
                input.pattern.text.hasPrefix(DerivedStream.topicPrefix)
                    ? (String(input.pattern.text.dropFirst(DerivedStream.topicPrefix.count)), input) : nil
            }
        }
        var state: [String: Int] = [:]  // 1 visiting, 2 done
        // Depth first with an explicit stack (a long chain must not exhaust
        // the thread's stack): each entry is a stream being visited and its
        // dependencies still to look at; the stack's names are the path.
        for root in derived where state[root.name] == nil {
            state[root.name] = 1
            var stack: [(name: String, dependencies: ArraySlice<(name: String, input: DerivedStream.Input)>)] = [
                (root.name, dependencies(root)[...])
            ]
            while !stack.isEmpty {
                guard let (dependency, input) = stack[stack.count - 1].dependencies.popFirst() else {
                    state[stack.removeLast().name] = 2
                    continue
                }
                if state[dependency] == 1 {
                    let cycle = stack.map(\.name).drop { $0 != dependency } + [dependency]
                    throw PipelineError(
                        .cycle, at: input.location,
                        "derived streams form a cycle: " + cycle.joined(separator: " → "))
                }
                guard state[dependency] == nil, let stream = byName[dependency] else { continue }
                state[dependency] = 1
                stack.append((dependency, dependencies(stream)[...]))
            }
        }
    }
}

extension Array where Element: Hashable {
    /// The elements without repeats, in first-seen order.
    var uniqued: [Element] {
        var seen = Set<Element>()
        return filter { seen.insert($0).inserted }
    }
}

extension PipelineLoader {
    /// The simulated device a `simulated` source makes, as the recording will
    /// (`nil` when the family has no simulator).
    func simulatedDevice(
        _ family: DeviceFamily, seed: UInt64, scenario: SimulationScenario, rate: Double?
    )
        -> (any SimulatedDevice)?
    {
        families.simulator(of: family, seed: seed, faults: scenario == .faults, rate: rate)
    }

    /// A few stream names of a family, for an error message.
    func streamExamples(of family: DeviceFamily) -> String {
        let names = (families[family]?.streamNames ?? []).filter { !$0.hasPrefix("unknown_") && !$0.contains("/") }
        return names.prefix(12).joined(separator: ", ") + (names.count > 12 ? ", …" : "")
    }
}
