public import ROS2

extension CDRValue {
    /// The value as JSON text for tidy exports: numbers as JSON numbers (a
    /// `float64`/`float32` always with a fraction or an exponent, printed
    /// with the shortest digits that read back to the same `Double`, so a
    /// float column never turns into an integer one), a NaN or infinite
    /// double as `null`, strings escaped, `uint8[]` and other arrays as JSON
    /// arrays.
    ///
    /// ```swift
    /// CDRValue.double(0.1).tidyJSON         // "0.1"
    /// CDRValue.double(2).tidyJSON           // "2.0"
    /// CDRValue.bytes([1, 2]).tidyJSON       // "[1,2]"
    /// ```
    public var tidyJSON: String {
        var text = ""
        appendJSON(to: &text)
        return text
    }

    /// The value as a tidy CSV or long-format cell: scalars as in
    /// `tidyJSON` (a NaN or infinite double as `NaN`, `inf`, `-inf`), a
    /// string as it is, arrays as JSON arrays.
    public var tidyText: String {
        switch self {
        case .string(let text): text
        case .double(let number) where !number.isFinite: number.isNaN ? "NaN" : (number < 0 ? "-inf" : "inf")
        default: tidyJSON
        }
    }

    private func appendJSON(to text: inout String) {
        switch self {
        case .bool(let flag): text += flag ? "true" : "false"
        case .int(let number): text += String(number)
        case .uint(let number): text += String(number)
        case .double(let number):
            // Swift's description is the shortest round-trip form: "0.1", "2.0", "1e-05", "1e+20".
            text += number.isFinite ? "\(number)" : "null"
        case .string(let string): JSONString.append(string, to: &text)
        case .bytes(let bytes):
            text += "["
            text += bytes.map { String($0) }.joined(separator: ",")
            text += "]"
        case .array(let items):
            text += "["
            for (position, item) in items.enumerated() {
                if position > 0 { text += "," }
                item.appendJSON(to: &text)
            }
            text += "]"
        }
    }
}
