/// One feature setting from a C001 features reply: a 5-byte record in the
/// data-channel layout (feature code, 4 value bytes little-endian), without a
/// channel (replies are not notified on a data channel).
///
/// ```swift
/// let setting = DiotFeatureSetting(index: 0, feature: .hrAlertTriggerTop, raw: 120)
/// print(setting.value) // int(120)
/// ```
public struct DiotFeatureSetting: Sendable, Hashable {
    /// The record's position within the reply, from 0.
    public var index: Int
    /// The feature code (byte 0 of the record).
    public var feature: DiotFeature
    /// The four value bytes read as a little-endian `UInt32`.
    public var raw: UInt32

    /// Creates a setting from its raw value bits.
    ///
    /// - Parameters:
    ///   - index: The position within the reply, from 0.
    ///   - feature: The feature code.
    ///   - raw: The four value bytes as a little-endian `UInt32`.
    public init(index: Int, feature: DiotFeature, raw: UInt32) {
        self.index = index
        self.feature = feature
        self.raw = raw
    }

    /// Creates a setting from a typed value, stored as its canonical bits
    /// (``DiotValue/raw``).
    ///
    /// - Parameters:
    ///   - index: The position within the reply, from 0.
    ///   - feature: The feature code.
    ///   - value: The value.
    public init(index: Int, feature: DiotFeature, value: DiotValue) {
        self.init(index: index, feature: feature, raw: value.raw)
    }

    /// The typed reading of ``raw`` for ``feature``.
    public var value: DiotValue {
        DiotValue(feature: feature, raw: raw)
    }
}
