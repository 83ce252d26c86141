/// How the four value bytes of a DIoT feature record are read.
///
/// The feature code decides the type (see ``DiotFeature/valueType``).
///
/// ```swift
/// print(DiotFeature.temperature.valueType == .float) // true
/// print(DiotFeature.heartRate.valueType == .int)     // true
/// ```
public enum DiotValueType: String, Sendable, Hashable, CaseIterable {
    /// IEEE-754 binary32, little-endian.
    case float
    /// Unsigned 32-bit integer, little-endian (the iOS SDK's reading; the
    /// Android SDK reads the same bytes as `Int32`).
    case int
    /// A flag: true when the first value byte is `0x01`.
    case bool
    /// An unsigned 32-bit integer read as Unix seconds.
    case date
}
