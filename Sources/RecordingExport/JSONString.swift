/// JSON string literals (RFC 8259 escapes), the one escaper the exporters,
/// the ROS 2 bag metadata (YAML reads JSON's double-quoted strings) and the
/// report use.
package enum JSONString {
    /// Appends `string` as a JSON string literal; scalars for which
    /// `alsoEscaping` (when given) is true are written as `\uXXXX` too.
    package static func append(
        _ string: String, to text: inout String, alsoEscaping: ((Unicode.Scalar) -> Bool)? = nil
    ) {
        text += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20 || (scalar.value <= 0xFFFF && alsoEscaping?(scalar) == true):
                let hex = String(scalar.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }

    /// `string` as a JSON string literal.
    package static func quoted(_ string: String, alsoEscaping: ((Unicode.Scalar) -> Bool)? = nil) -> String {
        var text = ""
        append(string, to: &text, alsoEscaping: alsoEscaping)
        return text
    }
}
