import Devices
import Families
import Quantities
import ROS2
import Recording
import Yams

/// Turns pipeline YAML into a validated ``Pipeline``. It walks Yams' node
/// tree (not `Decodable`), so every error names the line and column of the
/// offending key or value and says what was expected.
struct PipelineLoader {
    let file: String
    let text: String
    /// The families a device may be of.
    let families: FamilyRegistry

    static let topKeys = ["name", "devices", "record", "derived", "triggers", "recording"]
    static let triggerKeys = ["name", "on", "when", "before", "after"]
    static let deviceKeys = ["name", "family", "source"]
    static let sourceKeys = ["simulated", "live", "capture"]
    static let derivedKeys = ["name", "unit", "record", "from", "merge", "combineLatest", "value", "operators"]
    static let recordingKeys = ["segmentSize", "segmentDuration", "chunkSize", "chunkAge", "zstdLevel", "durability"]
    static let operatorNames = [
        "map", "filter", "debounce", "throttle", "sample", "chunked", "removeDuplicates", "prefix",
    ]

    func load() throws(PipelineError) -> Pipeline {
        let root: Node
        do {
            guard let node = try Yams.compose(yaml: text) else {
                throw PipelineError(
                    .missingKey, at: SourceLocation(file: file, line: 1, column: 1),
                    "the pipeline is empty (expected a mapping with name, devices, ...)")
            }
            root = node
        } catch let error as PipelineError {
            throw error
        } catch let error as YamlError {
            throw syntaxError(error)
        } catch {
            throw PipelineError(.syntax, at: SourceLocation(file: file, line: 1, column: 1), "not valid YAML: \(error)")
        }
        let top = try mapping(root, "the pipeline", allowed: Self.topKeys)
        let name = try text(
            try required(top, "name", in: "the pipeline", at: root, expected: "a name for the pipeline"),
            "name")
        let devicesNode = try required(
            top, "devices", in: "the pipeline", at: root,
            expected: "a list of devices with family and source")
        let devices = try loadDevices(devicesNode)
        let derivedNames = try derivedNames(top["derived"]?.value)
        let record = try top["record"].map { entry throws(PipelineError) in
            try sequence(entry.value, "record").map { node throws(PipelineError) in
                try pattern(node, "a record pattern", devices: devices, derivedNames: [])
            }
        }
        var derived: [DerivedStream] = []
        if let entry = top["derived"] {
            for node in try sequence(entry.value, "derived") {
                derived.append(try loadDerived(node, devices: devices, derivedNames: derivedNames))
            }
        }
        try checkCycles(derived)
        let recording =
            try top["recording"].map { entry throws(PipelineError) in try loadRecording(entry.value) }
            ?? RecordingSettings()
        var pipeline = Pipeline(
            name: name, file: file, text: text, devices: devices, record: record, derived: derived,
            recording: recording, families: families)
        if let entry = top["triggers"] {
            var names: Set<String> = []
            for node in try sequence(entry.value, "triggers") {
                let trigger = try loadTrigger(node, devices: devices, derivedNames: derivedNames)
                guard names.insert(trigger.name).inserted else {
                    throw PipelineError(.duplicate, at: trigger.location, "duplicate trigger name '\(trigger.name)'")
                }
                pipeline.triggers.append(trigger)
            }
        }
        return pipeline
    }

    /// One trigger: a name, `on:` patterns or a `when:` condition, and its window.
    func loadTrigger(
        _ node: Node, devices: [PipelineDevice], derivedNames: [String]
    ) throws(PipelineError) -> PipelineTrigger {
        let entries = try mapping(node, "a trigger", allowed: Self.triggerKeys)
        let name = try text(try required(entries, "name", in: "a trigger", at: node, expected: "its name"), "name")
        let what = "trigger '\(name)'"
        let before = try entries["before"].map { entry throws(PipelineError) in try duration(entry.value, "before") }
        let after = try entries["after"].map { entry throws(PipelineError) in try duration(entry.value, "after") }
        let conditions = ["on", "when"].filter { entries[$0] != nil }
        guard conditions.count == 1 else {
            throw PipelineError(
                conditions.isEmpty ? .missingKey : .invalidValue, at: location(node),
                "\(what) needs exactly one of: on (topic patterns), when (a condition such as 'acc_magnitude > 3.0')")
        }
        let condition: PipelineTrigger.Condition
        if let on = entries["on"] {
            let items = if case .sequence(let list) = on.value { Array(list) } else { [on.value] }
            condition = .on(
                try items.map { item throws(PipelineError) in
                    try pattern(item, "'on' of \(what)", devices: devices, derivedNames: derivedNames)
                })
        } else {
            let node = entries["when"]!.value
            let written = try text(node, "when")
            let parts = written.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            guard parts.count == 3, let comparison = PipelineTrigger.Comparison(rawValue: parts[1]),
                let threshold = Double(parts[2]), threshold.isFinite
            else {
                throw PipelineError(
                    .invalidValue, at: location(node),
                    "\(what): 'when' must read INPUT OP NUMBER, e.g. 'acc_magnitude > 3.0' or "
                        + "'/jacquard/*/imu.accel_x >= 2000' (OP: >, >=, <, <=), not '\(written)'")
            }
            // A bare name is a derived stream; PATTERN.FIELD reads a field (topics have no dots).
            var subject = parts[0]
            var field: String?
            if !subject.hasPrefix("/") { subject = DerivedStream.topicPrefix + subject }
            if let dot = subject.lastIndex(of: ".") {
                field = String(subject[subject.index(after: dot)...])
                subject = String(subject[..<dot])
            }
            if field != nil, subject.hasPrefix(DerivedStream.topicPrefix) {
                throw PipelineError(
                    .invalidValue, at: location(node), "\(what): a derived stream has a single value; no field")
            }
            let topic = try pattern(text: subject, at: location(node), devices: devices, derivedNames: derivedNames)
            condition = .when(
                DerivedStream.Input(pattern: topic, field: field, location: location(node)), comparison, threshold)
        }
        return PipelineTrigger(name: name, condition: condition, before: before, after: after, location: location(node))
    }

    func syntaxError(_ error: YamlError) -> PipelineError {
        switch error {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
            .composer(let context, let problem, let mark, _):
            let detail = context.map { "\($0.text): " } ?? ""
            return PipelineError(
                .syntax, at: SourceLocation(file: file, line: mark.line, column: mark.column),
                "not valid YAML: \(detail)\(problem)")
        case .duplicatedKeysInMapping(let duplicates, let context):
            let key = duplicates.sorted().first ?? ""
            // Yams marks the first occurrence; point at the repeat when it is a block key below it.
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            let indent = String(repeating: " ", count: max(context.mark.column - 1, 0))
            let repeatLine = lines.indices.first { index in
                index + 1 > context.mark.line && lines[index].hasPrefix(indent + key)
                    && lines[index].dropFirst(indent.count + key.count).drop { $0 == " " }.first == ":"
            }
            let line = repeatLine.map { $0 + 1 } ?? context.mark.line
            return PipelineError(
                .duplicate, at: SourceLocation(file: file, line: line, column: context.mark.column),
                "duplicate key '\(key)' (first at line \(context.mark.line); each key may appear once)")
        case .reader(let problem, _, _, _):
            return PipelineError(.syntax, at: SourceLocation(file: file), "not valid YAML: \(problem)")
        default:
            return PipelineError(.syntax, at: SourceLocation(file: file), "not valid YAML: \(error)")
        }
    }

    // MARK: - Devices

    func loadDevices(_ node: Node) throws(PipelineError) -> [PipelineDevice] {
        let items = try sequence(node, "devices")
        guard !items.isEmpty else {
            throw PipelineError(.missingKey, at: location(node), "devices: expected at least one device")
        }
        var devices: [PipelineDevice] = []
        var identifiers: [String: PipelineDevice] = [:]
        for item in items {
            let entries = try mapping(item, "a device", allowed: Self.deviceKeys)
            let familyNode = try required(
                entries, "family", in: "a device", at: item,
                expected: families.namesList)
            let familyName = try choice(familyNode, "family", from: families.families.map(\.rawValue))
            guard let family = families.descriptor(named: familyName)?.family else {
                throw PipelineError(.invalidValue, at: location(familyNode), "unknown family '\(familyName)'")
            }
            let name =
                try entries["name"].map { entry throws(PipelineError) in try text(entry.value, "device name") }
                ?? family.rawValue
            if let other = devices.first(where: { $0.name == name }) {
                throw PipelineError(
                    .duplicate, at: location(entries["name"]?.value ?? item),
                    "duplicate device name '\(name)' (first declared at line \(other.location.line); "
                        + "give each device its own name)")
            }
            let sourceNode = try required(
                entries, "source", in: "device '\(name)'", at: item,
                expected: "simulated, live or capture")
            let source = try loadSource(sourceNode, family: family)
            let device = PipelineDevice(name: name, family: family, source: source, location: location(item))
            if case .simulated(let seed, let scenario, let rate) = source {
                guard let identifier = simulatedDevice(family, seed: seed, scenario: scenario, rate: rate)?.identifier
                else {
                    throw PipelineError(
                        .invalidValue, at: location(sourceNode),
                        "the \(family.rawValue) family has no simulator (simulatable: "
                            + families.simulatable.map(\.rawValue).joined(separator: ", ") + ")")
                }
                let key = family.rawValue + "/" + identifier
                if let other = identifiers[key] {
                    throw PipelineError(
                        .duplicate, at: location(sourceNode),
                        "device '\(name)' would be the same simulated device as '\(other.name)' "
                            + "(\(family.rawValue) \(identifier)); give it another seed")
                }
                identifiers[key] = device
            }
            devices.append(device)
        }
        return devices
    }

    func loadSource(_ node: Node, family: DeviceFamily) throws(PipelineError) -> PipelineDevice.Source {
        let entries = try mapping(node, "a device source", allowed: Self.sourceKeys)
        guard entries.count == 1, let (kind, entry) = entries.first else {
            throw PipelineError(
                entries.isEmpty ? .missingKey : .invalidValue, at: location(node),
                "a device source needs exactly one of: simulated, live, capture")
        }
        switch kind {
        case "simulated":
            let settings =
                isNull(entry.value)
                ? [:]
                : try mapping(entry.value, "simulated", allowed: ["seed", "scenario", "rate"])
            let seed =
                try settings["seed"].map { setting throws(PipelineError) in
                    UInt64(try integer(setting.value, "seed", in: 0...Int.max))
                } ?? 1
            let scenario =
                try settings["scenario"].map { setting throws(PipelineError) in
                    SimulationScenario(
                        rawValue: try choice(
                            setting.value, "scenario",
                            from: SimulationScenario.allCases.map(\.rawValue)))!
                } ?? .clean
            var rate: Double?
            if let setting = settings["rate"] {
                guard families[family]?.simulatorTakesRate == true else {
                    let takers = families.descriptors.filter(\.simulatorTakesRate).map(\.family.rawValue)
                    throw PipelineError(
                        .invalidValue, at: location(setting.key),
                        "rate applies to \(takers.joined(separator: ", ")) devices only "
                            + "(this device is \(family.rawValue))")
                }
                let value = try number(setting.value, "rate")
                guard value > 0, value <= 10_000 else {
                    throw PipelineError(
                        .outOfRange, at: location(setting.value),
                        "rate \(value) is out of range (expected 0 < rate <= 10000 Hz)")
                }
                rate = value
            }
            return .simulated(seed: seed, scenario: scenario, rate: rate)
        case "live":
            let settings = try mapping(entry.value, "live", allowed: ["address", "name"])
            guard settings.count == 1 else {
                throw PipelineError(
                    .invalidValue, at: location(entry.value),
                    "a live device needs exactly one of: address, name")
            }
            return .live(
                address: try settings["address"].map { s throws(PipelineError) in try text(s.value, "address") },
                name: try settings["name"].map { s throws(PipelineError) in try text(s.value, "name") })
        default:
            // `capture: FILE`, or `capture: {path: FILE, address: AA:BB:CC:DD:EE:FF}`.
            if case .mapping = entry.value {
                let settings = try mapping(entry.value, "capture", allowed: ["path", "address"])
                guard let path = settings["path"] else {
                    throw PipelineError(.missingKey, at: location(entry.value), "a capture source needs a path")
                }
                return .capture(
                    path: try text(path.value, "capture file path"),
                    address: try settings["address"].map { s throws(PipelineError) in
                        try text(s.value, "address")
                    })
            }
            return .capture(path: try text(entry.value, "capture file path"), address: nil)
        }
    }

    // MARK: - Derived streams

    /// The names of the derived streams, checked for form and uniqueness, so
    /// streams may refer to ones declared later.
    func derivedNames(_ node: Node?) throws(PipelineError) -> [String] {
        guard let node, case .sequence(let items) = node else { return [] }
        var names: [String: Node] = [:]
        var ordered: [String] = []
        for item in items {
            guard case .mapping(let mapping) = item, let nameNode = mapping["name"] else { continue }
            let name = try text(nameNode, "derived stream name")
            // Its topic, /derived/<name>, must be a valid ROS 2 topic name.
            guard !name.isEmpty, !name.contains("/"), ROS2Name.isValidTopic(DerivedStream.topicPrefix + name) else {
                throw PipelineError(
                    .invalidValue, at: location(nameNode),
                    "derived stream name '\(name)' must use only letters, digits and single '_', "
                        + "and start with a letter or '_' (its topic is a ROS 2 topic name)")
            }
            if let first = names[name] {
                throw PipelineError(
                    .duplicate, at: location(nameNode),
                    "duplicate derived stream name '\(name)' (first declared at line \(location(first).line))")
            }
            names[name] = nameNode
            ordered.append(name)
        }
        return ordered
    }

    func loadDerived(
        _ node: Node, devices: [PipelineDevice], derivedNames: [String]
    ) throws(PipelineError) -> DerivedStream {
        let entries = try mapping(node, "a derived stream", allowed: Self.derivedKeys)
        let name = try text(
            try required(entries, "name", in: "a derived stream", at: node, expected: "its name"), "name")
        let what = "derived stream '\(name)'"
        let unit = try entries["unit"].map { entry throws(PipelineError) in try text(entry.value, "unit") }
        let isRecorded =
            try entries["record"].map { entry throws(PipelineError) in try boolean(entry.value, "record") } ?? true
        let sources = ["from", "merge", "combineLatest"].filter { entries[$0] != nil }
        guard sources.count == 1 else {
            let at = sources.count > 1 ? entries[sources[1]]!.key : node
            throw PipelineError(
                sources.isEmpty ? .missingKey : .invalidValue, at: location(at),
                "\(what) needs exactly one of: from, merge, combineLatest"
                    + (sources.count > 1 ? " (found \(sources.joined(separator: " and ")))" : ""))
        }
        let source: DerivedStream.Source
        switch sources[0] {
        case "from":
            let value = entries["from"]!.value
            let items = if case .sequence(let list) = value { Array(list) } else { [value] }
            source = .merge(
                try items.map { item throws(PipelineError) in
                    try input(item, what, devices: devices, derivedNames: derivedNames)
                })
            if entries["value"] != nil {
                throw PipelineError(
                    .invalidValue, at: location(entries["value"]!.key),
                    "'value' belongs to combineLatest; use map to transform a single input")
            }
        case "merge":
            let items = try sequence(entries["merge"]!.value, "merge")
            guard items.count >= 2 else {
                throw PipelineError(
                    .invalidValue, at: location(entries["merge"]!.value),
                    "merge needs at least two inputs (use from for one)")
            }
            source = .merge(
                try items.map { item throws(PipelineError) in
                    try input(item, what, devices: devices, derivedNames: derivedNames)
                })
            if entries["value"] != nil {
                throw PipelineError(
                    .invalidValue, at: location(entries["value"]!.key),
                    "'value' belongs to combineLatest; merge passes values unchanged")
            }
        default:
            let combineNode = entries["combineLatest"]!.value
            guard case .mapping(let mapping) = combineNode, mapping.count >= 2 else {
                throw wrongType(
                    combineNode, expected: "a mapping of at least two named inputs (x: /diot/*/acc_x, ...)",
                    for: "combineLatest")
            }
            var named: [(name: String, input: DerivedStream.Input)] = []
            for (key, value) in mapping {
                let variable = try text(key, "input name")
                guard let first = variable.first, first.isLetter || first == "_",
                    variable.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }),
                    ValueExpression.functions[variable] == nil
                else {
                    throw PipelineError(
                        .invalidValue, at: location(key),
                        "input name '\(variable)' must be an identifier (letters, digits, '_') and not a function name")
                }
                if named.contains(where: { $0.name == variable }) {
                    throw PipelineError(
                        .duplicate, at: location(key), "duplicate input name '\(variable)' in combineLatest")
                }
                named.append((variable, try input(value, what, devices: devices, derivedNames: derivedNames)))
            }
            let valueNode = try required(
                entries, "value", in: what, at: node,
                expected: "an expression over its inputs, e.g. sqrt(x^2 + y^2 + z^2)")
            let expressionText = try text(valueNode, "value")
            let expression: ValueExpression
            do {
                expression = try ValueExpression(parsing: expressionText, variables: named.map(\.name))
            } catch {
                throw PipelineError(
                    .invalidValue, at: scalarLocation(valueNode, offset: error.offset),
                    "in value: \(error.message)")
            }
            source = .combineLatest(named, value: expression)
        }
        var operators: [DerivedStream.Operator] = []
        var convertedUnit: String?
        if let entry = entries["operators"] {
            for item in try sequence(entry.value, "operators") {
                operators.append(try loadOperator(item, unit: &convertedUnit))
            }
        }
        return DerivedStream(
            name: name, unit: UnitCode.canonical(unit) ?? convertedUnit, isRecorded: isRecorded, source: source,
            operators: operators, location: location(node))
    }

    /// The location of a character inside a scalar (for expressions).
    func scalarLocation(_ node: Node, offset: Int) -> SourceLocation {
        var base = location(node)
        if case .scalar(let scalar) = node, scalar.style == .singleQuoted || scalar.style == .doubleQuoted {
            base = base.advanced(by: 1)
        }
        if case .scalar(let scalar) = node, scalar.style == .literal || scalar.style == .folded { return base }
        return base.advanced(by: offset)
    }

    func input(
        _ node: Node, _ what: String, devices: [PipelineDevice], derivedNames: [String]
    )
        throws(PipelineError) -> DerivedStream.Input
    {
        if case .mapping = node {
            let entries = try mapping(node, "an input", allowed: ["topic", "field"])
            let topicNode = try required(entries, "topic", in: "an input", at: node, expected: "a topic pattern")
            let topic = try pattern(topicNode, "an input of \(what)", devices: devices, derivedNames: derivedNames)
            let field = try entries["field"].map { entry throws(PipelineError) in try text(entry.value, "field") }
            if field != nil, topic.text.hasPrefix(DerivedStream.topicPrefix) {
                throw PipelineError(
                    .invalidValue, at: location(entries["field"]!.key),
                    "a derived stream has a single value; field applies to device streams only")
            }
            return DerivedStream.Input(pattern: topic, field: field, location: location(node))
        }
        let topic = try pattern(node, "an input of \(what)", devices: devices, derivedNames: derivedNames)
        return DerivedStream.Input(pattern: topic, field: nil, location: location(node))
    }

    // MARK: - Operators

    /// One operator; a unit conversion sets `unit` to its target unit.
    func loadOperator(_ node: Node, unit: inout String?) throws(PipelineError) -> DerivedStream.Operator {
        let name: String
        let nameNode: Node
        let parameter: Node?
        switch node {
        case .scalar:
            name = try text(node, "operator")
            nameNode = node
            parameter = nil
        case .mapping(let mapping):
            guard mapping.count == 1, let (key, value) = mapping.first else {
                throw PipelineError(
                    .invalidValue, at: location(node),
                    "an operator is one key with its parameters, e.g. '- debounce: 500ms'")
            }
            name = try text(key, "operator")
            nameNode = key
            parameter = isNull(value) ? nil : value
        default:
            throw wrongType(node, expected: "an operator such as '- debounce: 500ms'", for: "operators")
        }
        guard Self.operatorNames.contains(name) else {
            throw PipelineError(
                .invalidValue, at: location(nameNode),
                "unknown operator '\(name)' (expected one of: \(Self.operatorNames.joined(separator: ", ")))")
        }
        func needs(_ expected: String) throws(PipelineError) -> Node {
            guard let parameter else {
                throw PipelineError(.missingKey, at: location(nameNode), "\(name) needs \(expected)")
            }
            return parameter
        }
        switch name {
        case "map":
            let parameterNode = try needs("{scale: …, offset: …} or {from: unit, to: unit}")
            let entries = try mapping(parameterNode, "map", allowed: ["scale", "offset", "from", "to"])
            let byUnits = entries["from"] != nil || entries["to"] != nil
            if byUnits {
                if let extra = entries["scale"] ?? entries["offset"] {
                    throw PipelineError(
                        .invalidValue, at: location(extra.key),
                        "map takes either scale/offset or from/to units, not both")
                }
                let fromNode = try required(entries, "from", in: "map", at: parameterNode, expected: "the source unit")
                let toNode = try required(entries, "to", in: "map", at: parameterNode, expected: "the target unit")
                let from = try text(fromNode, "unit")
                let to = try text(toNode, "unit")
                do {
                    let (scale, offset) = try UnitConversion.scaleAndOffset(from: from, to: to)
                    unit = UnitCode.canonical(to)
                    return .map(scale: scale, offset: offset)
                } catch {
                    throw PipelineError(
                        .invalidValue, at: location(error.unit == from ? fromNode : toNode), error.message)
                }
            }
            guard !entries.isEmpty else {
                throw PipelineError(
                    .missingKey, at: location(parameterNode), "map needs scale and/or offset, or from/to units")
            }
            let scale = try entries["scale"].map { e throws(PipelineError) in try number(e.value, "scale") } ?? 1
            let offset = try entries["offset"].map { e throws(PipelineError) in try number(e.value, "offset") } ?? 0
            return .map(scale: scale, offset: offset)
        case "filter":
            let parameterNode = try needs("{min: …} and/or {max: …}")
            let entries = try mapping(parameterNode, "filter", allowed: ["min", "max"])
            let minimum = try entries["min"].map { e throws(PipelineError) in try number(e.value, "min") }
            let maximum = try entries["max"].map { e throws(PipelineError) in try number(e.value, "max") }
            guard minimum != nil || maximum != nil else {
                throw PipelineError(.missingKey, at: location(parameterNode), "filter needs min and/or max")
            }
            if let minimum, let maximum, minimum > maximum {
                throw PipelineError(
                    .outOfRange, at: location(entries["max"]!.value),
                    "filter max \(maximum) is below min \(minimum)")
            }
            return .filter(min: minimum, max: maximum)
        case "debounce":
            return .debounce(try duration(try needs("an interval, e.g. 500ms"), "debounce interval"))
        case "sample":
            return .sample(try duration(try needs("an interval, e.g. 1s"), "sample interval"))
        case "throttle":
            let parameterNode = try needs("an interval, e.g. 1s, or {interval: 1s, latest: false}")
            if case .mapping = parameterNode {
                let entries = try mapping(parameterNode, "throttle", allowed: ["interval", "latest"])
                let interval = try duration(
                    try required(
                        entries, "interval", in: "throttle", at: parameterNode,
                        expected: "e.g. 1s"), "throttle interval")
                let latest =
                    try entries["latest"].map { e throws(PipelineError) in try boolean(e.value, "latest") } ?? true
                return .throttle(interval, latest: latest)
            }
            return .throttle(try duration(parameterNode, "throttle interval"), latest: true)
        case "chunked":
            let parameterNode = try needs("{count: n} and/or {every: interval}, and optionally reduce")
            let entries = try mapping(parameterNode, "chunked", allowed: ["count", "every", "reduce"])
            let count = try entries["count"].map { e throws(PipelineError) in
                try integer(e.value, "chunk count", in: 1...1_000_000)
            }
            let every = try entries["every"].map { e throws(PipelineError) in try duration(e.value, "chunk interval") }
            guard count != nil || every != nil else {
                throw PipelineError(.missingKey, at: location(parameterNode), "chunked needs count and/or every")
            }
            let reduce =
                try entries["reduce"].map { e throws(PipelineError) in
                    DerivedStream.Reduction(
                        rawValue: try choice(
                            e.value, "reduction",
                            from: DerivedStream.Reduction.allCases.map(\.rawValue)))!
                } ?? .mean
            return .chunked(count: count, every: every, reduce: reduce)
        case "removeDuplicates":
            if let parameter {
                guard try boolean(parameter, "removeDuplicates") else {
                    throw PipelineError(
                        .invalidValue, at: location(parameter),
                        "removeDuplicates: false does nothing; remove the operator instead")
                }
            }
            return .removeDuplicates
        default:
            return .prefix(try integer(try needs("a count, e.g. 100"), "prefix count", in: 0...Int(Int32.max)))
        }
    }

    // MARK: - Recording

    func loadRecording(_ node: Node) throws(PipelineError) -> RecordingSettings {
        let entries = try mapping(node, "recording", allowed: Self.recordingKeys)
        var configuration = RecorderConfiguration()
        // Each setting is checked as it is set, by the recorder's own bounds,
        // so the error points at the value that breaks them.
        func check(_ value: Node) throws(PipelineError) {
            do { try configuration.validate() } catch {
                throw PipelineError(.outOfRange, at: location(value), error.message)
            }
        }
        if let entry = entries["segmentSize"] {
            configuration.segmentSize = try size(entry.value, "segmentSize")
            try check(entry.value)
        }
        if let entry = entries["segmentDuration"] {
            configuration.segmentDuration = try duration(entry.value, "segmentDuration")
            try check(entry.value)
        }
        if let entry = entries["chunkSize"] {
            configuration.chunkSize = Int(clamping: try size(entry.value, "chunkSize"))
            try check(entry.value)
        }
        if let entry = entries["chunkAge"] {
            configuration.chunkAge = try duration(entry.value, "chunkAge")
            try check(entry.value)
        }
        if let entry = entries["zstdLevel"] {
            configuration.zstdLevel = try integer(entry.value, "zstdLevel", in: 1...22)
        }
        if let entry = entries["durability"] {
            // `choice` only returns one of the raw values.
            configuration.durability = Durability(
                rawValue: try choice(entry.value, "durability", from: Durability.allCases.map(\.rawValue)))!
        }
        return RecordingSettings(configuration: configuration)
    }
}
