/// The ROS 2 topic name rule recordings follow, so that a recording's
/// segments are a valid ROS 2 bag (`docs/specs/recording.md`, "A recording
/// is a ROS 2 bag").
///
/// A fully qualified ROS 2 topic name starts with `/`, does not end with
/// `/`, holds only `A`–`Z`, `a`–`z`, `0`–`9`, `_` and `/`, has no empty part
/// (`//`), no part that starts with a digit, and is at most
/// ``maximumTopicLength`` characters long. We also keep out `__` (the ROS 2
/// naming design reserves repeated underscores).
///
/// Topic parts built from outside text (device identifiers, characteristic
/// UUIDs) go through ``token(_:prefix:)``: a part that is already valid is
/// kept as it is; otherwise every character outside `[A-Za-z0-9_]` becomes
/// `_`, runs of `_` become one, and a part that would start with a digit (or
/// be empty) gets a letter prefix:
///
/// ```swift
/// ROS2Name.deviceToken("SCOOT-8FB8")   // "SCOOT_8FB8"
/// ROS2Name.deviceToken("9F3A0C11")     // "d_9F3A0C11"
/// ```
public enum ROS2Name {
    /// The longest topic name ROS 2 accepts (255 less 8 characters the
    /// middleware reserves for prefixes).
    public static let maximumTopicLength = 247

    /// Why a topic name is not a valid ROS 2 name.
    public enum Violation: Sendable, Hashable, CustomStringConvertible {
        /// The name is empty.
        case empty
        /// The name does not start with `/`.
        case notAbsolute
        /// The name ends with `/`.
        case endsWithSlash
        /// A character other than `A`–`Z`, `a`–`z`, `0`–`9`, `_` and `/`, at a character offset.
        case invalidCharacter(Character, at: Int)
        /// Two `/` in a row (an empty part), at a character offset.
        case emptyPart(at: Int)
        /// A part starts with a digit, at a character offset.
        case partStartsWithDigit(at: Int)
        /// Two `_` in a row, at a character offset.
        case repeatedUnderscore(at: Int)
        /// Longer than ``ROS2Name/maximumTopicLength`` characters.
        case tooLong(Int)

        public var description: String {
            switch self {
            case .empty: "it is empty"
            case .notAbsolute: "it does not start with /"
            case .endsWithSlash: "it ends with /"
            case .invalidCharacter(let character, let offset):
                "\(String(reflecting: String(character))) at \(offset) is not a letter, digit, _ or /"
            case .emptyPart(let offset): "it has an empty part (//) at \(offset)"
            case .partStartsWithDigit(let offset): "the part at \(offset) starts with a digit"
            case .repeatedUnderscore(let offset): "it has a repeated _ at \(offset)"
            case .tooLong(let count): "it has \(count) characters, more than \(ROS2Name.maximumTopicLength)"
            }
        }
    }

    /// The first rule a fully qualified topic name breaks, or `nil` for a valid name.
    public static func violation(ofTopic topic: String) -> Violation? {
        let characters = Array(topic.unicodeScalars)
        guard let first = characters.first else { return .empty }
        guard first == "/" else { return .notAbsolute }
        guard characters.count > 1, characters.last != "/" else { return .endsWithSlash }
        for (offset, scalar) in characters.enumerated() {
            let previous = offset > 0 ? characters[offset - 1] : nil
            switch scalar {
            case "/":
                if previous == "/" { return .emptyPart(at: offset) }
            case "_":
                if previous == "_" { return .repeatedUnderscore(at: offset) }
            case "0"..."9":
                if previous == "/" { return .partStartsWithDigit(at: offset) }
            case "a"..."z", "A"..."Z":
                continue
            default:
                return .invalidCharacter(Character(scalar), at: offset)
            }
        }
        if characters.count > maximumTopicLength { return .tooLong(characters.count) }
        return nil
    }

    /// Whether `topic` is a valid fully qualified ROS 2 topic name.
    public static func isValidTopic(_ topic: String) -> Bool { violation(ofTopic: topic) == nil }

    /// One topic part made from any text: `text` itself when it is a valid
    /// part; otherwise with every character outside `[A-Za-z0-9_]` replaced
    /// by `_`, runs of `_` collapsed to one, and `prefix` in front when the
    /// result is empty or starts with a digit.
    ///
    /// - Parameters:
    ///   - text: Any text (an identifier, a name).
    ///   - prefix: Letters, then `_` (for example `d_`); it must be a valid
    ///     part itself.
    public static func token(_ text: String, prefix: String) -> String {
        var scalars = String.UnicodeScalarView()
        var lastWasUnderscore = false
        for scalar in text.unicodeScalars {
            let kept: Unicode.Scalar
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9": kept = scalar
            default: kept = "_"
            }
            if kept == "_" {
                if lastWasUnderscore { continue }
                lastWasUnderscore = true
            } else {
                lastWasUnderscore = false
            }
            scalars.append(kept)
        }
        let cleaned = String(scalars)
        guard let first = cleaned.unicodeScalars.first, !("0"..."9").contains(first) else {
            // Empty, or a leading digit (so never a leading `_`): the prefix.
            return prefix + cleaned
        }
        return cleaned
    }

    /// A stream name as topic levels: each `/`-separated level made a part
    /// by ``token(_:prefix:)`` with prefix `s_` (valid names are kept).
    public static func streamLevels(_ stream: String) -> String {
        stream.split(separator: "/", omittingEmptySubsequences: false)
            .map { token(String($0), prefix: "s_") }.joined(separator: "/")
    }

    /// A device identifier as a topic part (prefix `d_` where one is needed).
    public static func deviceToken(_ identifier: String) -> String { token(identifier, prefix: "d_") }
}
