import Quantities
import Recording
import Yams

/// Reading typed values out of YAML nodes, with errors at the node's position.
extension PipelineLoader {
    /// Where a node is.
    func location(_ node: Node) -> SourceLocation {
        guard let mark = node.mark else { return SourceLocation(file: file) }
        return SourceLocation(file: file, line: mark.line, column: mark.column)
    }

    /// What a node is, for "found …" in errors.
    func kind(_ node: Node) -> String {
        switch node {
        case .scalar(let scalar):
            if scalar.style == .plain, ["", "~", "null", "Null", "NULL"].contains(scalar.string) { return "nothing" }
            return "'\(scalar.string)'"
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        case .alias: return "an alias"
        }
    }

    func wrongType(_ node: Node, expected: String, for what: String) -> PipelineError {
        PipelineError(.wrongType, at: location(node), "\(what): expected \(expected), found \(kind(node))")
    }

    /// A mapping's entries, checked against the allowed keys (unknown and duplicate keys are errors).
    func mapping(
        _ node: Node, _ what: String, allowed: [String]
    ) throws(PipelineError) -> [String: (key: Node, value: Node)] {
        guard case .mapping(let mapping) = node else { throw wrongType(node, expected: "a mapping", for: what) }
        var entries: [String: (key: Node, value: Node)] = [:]
        for (key, value) in mapping {
            guard case .scalar(let scalar) = key else {
                throw wrongType(key, expected: "a key name", for: what)
            }
            let name = scalar.string
            guard allowed.contains(name) else {
                throw PipelineError(
                    .unknownKey, at: location(key),
                    "unknown key '\(name)' in \(what) (expected one of: \(allowed.joined(separator: ", ")))")
            }
            if entries[name] != nil {
                throw PipelineError(.duplicate, at: location(key), "duplicate key '\(name)' in \(what)")
            }
            entries[name] = (key, value)
        }
        return entries
    }

    /// A required entry of a mapping.
    func required(
        _ entries: [String: (key: Node, value: Node)], _ key: String, in what: String, at node: Node,
        expected: String
    ) throws(PipelineError) -> Node {
        guard let entry = entries[key] else {
            throw PipelineError(.missingKey, at: location(node), "\(what) needs '\(key)' (\(expected))")
        }
        return entry.value
    }

    /// A list's items.
    func sequence(_ node: Node, _ what: String) throws(PipelineError) -> [Node] {
        guard case .sequence(let sequence) = node else { throw wrongType(node, expected: "a list", for: what) }
        return Array(sequence)
    }

    /// A scalar's text (strings, numbers and booleans alike).
    func text(_ node: Node, _ what: String) throws(PipelineError) -> String {
        guard case .scalar(let scalar) = node, !isNull(node) else { throw wrongType(node, expected: "text", for: what) }
        return scalar.string
    }

    func isNull(_ node: Node) -> Bool {
        if case .scalar(let scalar) = node, scalar.style == .plain,
            ["", "~", "null", "Null", "NULL"].contains(scalar.string)
        {
            return true
        }
        return false
    }

    func integer(_ node: Node, _ what: String, in range: ClosedRange<Int>? = nil) throws(PipelineError) -> Int {
        guard case .scalar(let scalar) = node, let value = Int(scalar.string.replacingUnderscores) else {
            throw wrongType(node, expected: "a whole number", for: what)
        }
        if let range, !range.contains(value) {
            throw PipelineError(
                .outOfRange, at: location(node),
                "\(what) \(value) is out of range (expected \(range.lowerBound)...\(range.upperBound))")
        }
        return value
    }

    func number(_ node: Node, _ what: String) throws(PipelineError) -> Double {
        guard case .scalar(let scalar) = node, let value = Double(scalar.string.replacingUnderscores), value.isFinite
        else {
            throw wrongType(node, expected: "a number", for: what)
        }
        return value
    }

    func boolean(_ node: Node, _ what: String) throws(PipelineError) -> Bool {
        guard case .scalar(let scalar) = node else { throw wrongType(node, expected: "true or false", for: what) }
        switch scalar.string {
        case "true", "True", "TRUE", "yes", "on": return true
        case "false", "False", "FALSE", "no", "off": return false
        default: throw wrongType(node, expected: "true or false", for: what)
        }
    }

    /// One of the allowed words.
    func choice(_ node: Node, _ what: String, from allowed: [String]) throws(PipelineError) -> String {
        let value = try text(node, what)
        guard allowed.contains(value) else {
            throw PipelineError(
                .invalidValue, at: location(node),
                "unknown \(what) '\(value)' (expected one of: \(allowed.joined(separator: ", ")))")
        }
        return value
    }

    /// A positive duration with a unit: `250ms`, `1s`, `1.5m`, `2h`, `500us`, `100ns`, read by
    /// `DurationSyntax` as the command line reads its durations, with the same bounds.
    func duration(_ node: Node, _ what: String) throws(PipelineError) -> Duration {
        guard case .scalar(let scalar) = node, !isNull(node) else {
            throw wrongType(node, expected: "a duration with a unit such as 250ms, 1s, 2m or 1h", for: what)
        }
        do {
            return try DurationSyntax.parse(scalar.string)
        } catch {
            throw PipelineError(
                error.kind == .malformed ? .wrongType : .outOfRange, at: location(node),
                "\(what): \(error.message)")
        }
    }

    /// A size in bytes: `65536`, `64KiB`, `1MiB`, `2GiB`, `500kB`, `10MB`, read by `ByteSize`
    /// as the command line reads its sizes (their bounds are `RecorderConfiguration`'s).
    func size(_ node: Node, _ what: String) throws(PipelineError) -> UInt64 {
        guard case .scalar(let scalar) = node, !isNull(node) else {
            throw wrongType(node, expected: "a size such as 65536, 64KiB, 1MiB or 2GiB", for: what)
        }
        do {
            return try ByteSize(parsing: scalar.string).bytes
        } catch {
            throw PipelineError(
                error.kind == .malformed ? .wrongType : .outOfRange, at: location(node),
                "\(what): \(error.message)")
        }
    }
}

extension StringProtocol {
    var replacingUnderscores: String { String(filter { $0 != "_" }) }
    var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
