#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Loading and saving property tables as JSON files.
///
/// The file is one object with `version` (must be 1) and `properties`, an
/// array of objects with these fields:
///
/// | Field | Type | Required | Meaning |
/// |---|---|---|---|
/// | `index` | integer 0…65535 | yes | wire index, unique |
/// | `identifier` | string | yes | SDK identifier, unique, non-empty |
/// | `type` | `"range"`, `"states"` or `"raw"` | yes | |
/// | `unit` | string | no (`""`) | SDK unit identifier |
/// | `rawWidth` | integer 1…8 | range, states (raw: default 8) | bytes the device sends |
/// | `signed` | bool | no (`false`) | raw integer is signed |
/// | `step` | number > 0 | range only | |
/// | `lowerBound`, `upperBound` | numbers, lower ≤ upper | range only | read range |
/// | `states` | array of distinct non-empty strings | states only | |
/// | `writable` | bool | no (`false`) | |
///
/// A field a type does not use (`step` on a states property) is an error,
/// so a mistaken type is caught. Unknown keys are ignored.
///
/// ```json
/// {
///   "version": 1,
///   "properties": [
///     { "index": 1, "identifier": "speed", "type": "range", "unit": "kilometer_per_hour",
///       "rawWidth": 2, "step": 0.1, "lowerBound": 0, "upperBound": 100 },
///     { "index": 4, "identifier": "lights", "type": "states", "rawWidth": 1,
///       "states": ["disabled", "blinking", "enabled"], "writable": true },
///     { "index": 16, "identifier": "motor_serial", "type": "raw", "rawWidth": 8 }
///   ]
/// }
/// ```
extension ComodulePropertyTable {
    /// Loads a table from a JSON file (format above).
    ///
    /// ```swift
    /// let table = try ComodulePropertyTable.load(contentsOfFile: "scooter.json")
    /// var decoder = ComoduleDecoder(table: table)
    /// ```
    ///
    /// - Parameter path: The file's path.
    /// - Returns: The validated table.
    /// - Throws: ``ComodulePropertyTableError``: ``ComodulePropertyTableError/Code/unreadableFile``
    ///   when the file cannot be read, otherwise as ``init(json:)``.
    public static func load(contentsOfFile path: String) throws(ComodulePropertyTableError) -> ComodulePropertyTable {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ComodulePropertyTableError(
                code: .unreadableFile,
                field: nil,
                line: nil,
                message: "cannot read the property table file \(path): \(error)"
            )
        }
        return try ComodulePropertyTable(json: [UInt8](data))
    }

    /// Parses and validates a table from the bytes of a JSON file (format above).
    ///
    /// - Parameter json: The file's bytes, UTF-8 JSON.
    /// - Throws: ``ComodulePropertyTableError`` with the line and the field
    ///   path (`properties[2].step`) of the first problem: invalid JSON,
    ///   version ≠ 1, a missing or mistyped field, a value out of its rules, or a
    ///   duplicate index or identifier.
    public init(json: [UInt8]) throws(ComodulePropertyTableError) {
        let file: TableFile
        do {
            file = try JSONDecoder().decode(TableFile.self, from: Data(json))
        } catch let error as DecodingError {
            throw Self.tableError(error, json: json)
        } catch {
            throw ComodulePropertyTableError(code: .invalidJSON, field: nil, line: nil, message: "\(error)")
        }
        guard let version = file.version else {
            throw ComodulePropertyTableError(
                code: .missingField,
                field: "version",
                line: nil,
                message: "missing field \"version\" (must be 1)"
            )
        }
        guard version == 1 else {
            throw ComodulePropertyTableError(
                code: .unsupportedVersion,
                field: "version",
                line: nil,
                message:
                    "version \(Int(exactly: version).map(String.init) ?? "\(version)") is not supported; "
                    + "this recorder reads version 1"
            )
        }
        guard let entries = file.properties else {
            throw ComodulePropertyTableError(
                code: .missingField,
                field: "properties",
                line: nil,
                message: "missing field \"properties\" (an array)"
            )
        }
        let lines = entries.indices.map { Self.line(ofProperty: $0, in: json) }
        var properties: [ComoduleProperty] = []
        properties.reserveCapacity(entries.count)
        for (position, entry) in entries.enumerated() {
            properties.append(try entry.property(position: position, line: lines[position]))
        }
        try self.init(properties: properties, lines: lines)
    }

    /// The table as a JSON file (format above, pretty-printed, sorted keys).
    ///
    /// - Returns: UTF-8 JSON that ``init(json:)`` reads back to an equal table.
    public func json() -> [UInt8] {
        let file = TableFile(version: 1, properties: properties.map(PropertyFile.init))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        // Validated tables hold only finite numbers, which always encode.
        return (try? [UInt8](encoder.encode(file))) ?? []
    }

    /// Converts a `JSONDecoder` error into a table error with field path and line.
    private static func tableError(_ error: DecodingError, json: [UInt8]) -> ComodulePropertyTableError {
        func path(_ codingPath: [any CodingKey]) -> String? {
            var text = ""
            for key in codingPath {
                if let index = key.intValue {
                    text += "[\(index)]"
                } else {
                    text += (text.isEmpty ? "" : ".") + key.stringValue
                }
            }
            return text.isEmpty ? nil : text
        }
        func line(_ codingPath: [any CodingKey]) -> Int? {
            guard codingPath.count >= 2, codingPath[0].stringValue == "properties",
                let position = codingPath[1].intValue
            else { return nil }
            return Self.line(ofProperty: position, in: json)
        }
        switch error {
        case .typeMismatch(let type, let context):
            return ComodulePropertyTableError(
                code: .wrongType,
                field: path(context.codingPath),
                line: line(context.codingPath),
                message: "wrong type; expected \(Self.jsonTypeName(type))"
            )
        case .valueNotFound(let type, let context):
            return ComodulePropertyTableError(
                code: .wrongType,
                field: path(context.codingPath),
                line: line(context.codingPath),
                message: "null; expected \(Self.jsonTypeName(type))"
            )
        case .keyNotFound(let key, let context):
            let full = context.codingPath + [key]
            return ComodulePropertyTableError(
                code: .missingField,
                field: path(full),
                line: line(full),
                message: "missing field \"\(key.stringValue)\""
            )
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty {
                if let syntax = ComoduleJSONSyntaxCheck.firstError(in: json) {
                    return ComodulePropertyTableError(
                        code: .invalidJSON,
                        field: nil,
                        line: syntax.line,
                        message: "not valid JSON at column \(syntax.column): \(syntax.message)"
                    )
                }
                let detail = context.underlyingError.map { "\($0)" } ?? context.debugDescription
                return ComodulePropertyTableError(
                    code: .invalidJSON,
                    field: nil,
                    line: Self.lineNumber(in: detail) ?? Self.lineNumber(in: context.debugDescription),
                    message: "not usable JSON: \(context.debugDescription)"
                )
            }
            return ComodulePropertyTableError(
                code: .wrongType,
                field: path(context.codingPath),
                line: line(context.codingPath),
                message: "unusable value: \(context.debugDescription)"
            )
        @unknown default:
            return ComodulePropertyTableError(code: .invalidJSON, field: nil, line: nil, message: "\(error)")
        }
    }

    private static func jsonTypeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is Int.Type, is Double.Type: "a number"
        case is [String].Type: "an array of strings"
        default: "an array or object (\(type))"
        }
    }

    /// The number after the first `line ` in a message, if any.
    private static func lineNumber(in text: String) -> Int? {
        let bytes = Array(text.utf8)
        let needle = Array("line ".utf8)
        guard bytes.count > needle.count else { return nil }
        for start in 0...(bytes.count - needle.count) where Array(bytes[start..<start + needle.count]) == needle {
            let digits = bytes[(start + needle.count)...].prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
            return Int(String(decoding: digits.prefix(9), as: UTF8.self))
        }
        return nil
    }

    /// The 1-based line where the `position`-th object of the first array
    /// nested in the root object (`properties`) starts, found by a scan that
    /// skips strings. `nil` when there is no such object.
    static func line(ofProperty position: Int, in json: [UInt8]) -> Int? {
        var line = 1
        var depth: [UInt8] = []
        var inString = false
        var escaped = false
        var seen = 0
        for byte in json {
            if byte == UInt8(ascii: "\n") { line += 1 }
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                if byte == UInt8(ascii: "{"), depth == [UInt8(ascii: "{"), UInt8(ascii: "[")] {
                    if seen == position { return line }
                    seen += 1
                }
                if depth.count < 64 { depth.append(byte) } else { return nil }
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if depth.popLast() == nil { return nil }
            default:
                break
            }
        }
        return nil
    }
}

/// The top level of a table file.
private struct TableFile: Codable {
    var version: Double?
    var properties: [PropertyFile]?
}

/// One property of a table file; every field optional so that a missing one
/// gets a precise error rather than a generic decoding failure.
private struct PropertyFile: Codable {
    var index: Double?
    var identifier: String?
    var type: String?
    var unit: String?
    var rawWidth: Double?
    var signed: Bool?
    var step: Double?
    var lowerBound: Double?
    var upperBound: Double?
    var states: [String]?
    var writable: Bool?

    init(_ property: ComoduleProperty) {
        index = Double(property.index)
        identifier = property.identifier
        type = property.type.name
        unit = property.unit.isEmpty ? nil : property.unit
        rawWidth = Double(property.rawWidth)
        signed = property.isSigned ? true : nil
        writable = property.writable ? true : nil
        switch property.type {
        case .range(let step, let lowerBound, let upperBound):
            self.step = step
            self.lowerBound = lowerBound
            self.upperBound = upperBound
        case .states(let states):
            self.states = states
        case .raw:
            break
        }
    }

    /// The property this entry describes, with presence and type checks.
    func property(position: Int, line: Int?) throws(ComodulePropertyTableError) -> ComoduleProperty {
        func failure(
            _ code: ComodulePropertyTableError.Code, _ field: String, _ message: String
        )
            -> ComodulePropertyTableError
        {
            ComodulePropertyTableError(
                code: code,
                field: "properties[\(position)].\(field)",
                line: line,
                message: message
            )
        }
        func required<T>(_ value: T?, _ field: String, _ what: String) throws(ComodulePropertyTableError) -> T {
            guard let value else { throw failure(.missingField, field, "missing field \"\(field)\" (\(what))") }
            return value
        }
        func unused(_ present: Bool, _ field: String, _ kind: String) throws(ComodulePropertyTableError) {
            if present { throw failure(.invalidValue, field, "\"\(field)\" is not used by a \(kind) property") }
        }
        let index = try required(index, "index", "an integer 0…65535")
        guard let wireIndex = UInt16(exactly: index) else {
            throw failure(.invalidValue, "index", "index \(index) is not an integer in 0…65535")
        }
        let identifier = try required(identifier, "identifier", "a string")
        let typeName = try required(type, "type", "\"range\", \"states\" or \"raw\"")
        let propertyType: ComodulePropertyType
        switch typeName {
        case "range":
            try unused(states != nil, "states", "range")
            propertyType = .range(
                step: try required(step, "step", "a number above 0"),
                lowerBound: try required(lowerBound, "lowerBound", "a number"),
                upperBound: try required(upperBound, "upperBound", "a number")
            )
        case "states":
            try unused(step != nil, "step", "states")
            try unused(lowerBound != nil, "lowerBound", "states")
            try unused(upperBound != nil, "upperBound", "states")
            propertyType = .states(try required(states, "states", "an array of state identifiers"))
        case "raw":
            try unused(step != nil, "step", "raw")
            try unused(lowerBound != nil, "lowerBound", "raw")
            try unused(upperBound != nil, "upperBound", "raw")
            try unused(states != nil, "states", "raw")
            propertyType = .raw
        default:
            throw failure(.invalidValue, "type", "type \"\(typeName)\" is not \"range\", \"states\" or \"raw\"")
        }
        let widthNumber = typeName == "raw" ? rawWidth ?? 8 : try required(rawWidth, "rawWidth", "an integer 1…8")
        guard let width = Int(exactly: widthNumber), (1...8).contains(width) else {
            throw failure(.invalidValue, "rawWidth", "rawWidth \(widthNumber) must be an integer 1…8 (bytes)")
        }
        return ComoduleProperty(
            index: wireIndex,
            identifier: identifier,
            type: propertyType,
            unit: unit ?? "",
            rawWidth: width,
            isSigned: signed ?? false,
            writable: writable ?? false
        )
    }
}
