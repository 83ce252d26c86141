import Devices
public import ROS2

extension CDRValue {
    /// The value as text for tables and CSV: numbers and booleans as Swift
    /// prints them, strings as they are, `uint8[]` as hex, other arrays as
    /// `[a b c]`.
    public var text: String {
        switch self {
        case .bool(let flag): String(flag)
        case .int(let number): String(number)
        case .uint(let number): String(number)
        case .double(let number): "\(number)"
        case .string(let text): text
        case .bytes(let bytes): hex(bytes)
        case .array(let items): "[" + items.map(\.text).joined(separator: " ") + "]"
        }
    }
}
