/// One 5-byte DIoT feature record: a feature code and four value bytes,
/// with the channel that notified it and its index within the notification.
///
/// The value bytes are kept as ``raw`` (little-endian `UInt32`), so every
/// reading can be derived; ``value`` is the typed reading.
///
/// ```swift
/// let record = DiotRecord(channel: DiotChannel(1)!, index: 0, feature: .heartRate, value: .int(72))
/// print(record.rawBytes)  // [72, 0, 0, 0]
/// print(record.value)     // int(72)
/// ```
public struct DiotRecord: Sendable, Hashable {
    /// The channel whose characteristic notified the record.
    public var channel: DiotChannel
    /// The record's position within its notification, from 0.
    public var index: Int
    /// The feature code (byte 0 of the record).
    public var feature: DiotFeature
    /// The four value bytes read as a little-endian `UInt32`.
    public var raw: UInt32

    /// Creates a record from its raw value bits.
    ///
    /// - Parameters:
    ///   - channel: The data channel.
    ///   - index: The position within the notification, from 0.
    ///   - feature: The feature code.
    ///   - raw: The four value bytes as a little-endian `UInt32`.
    @inlinable
    public init(channel: DiotChannel, index: Int, feature: DiotFeature, raw: UInt32) {
        self.channel = channel
        self.index = index
        self.feature = feature
        self.raw = raw
    }

    /// Creates a record from a typed value, stored as its canonical bits
    /// (``DiotValue/raw``).
    ///
    /// The value is not checked against the feature's type: a `.float` given
    /// for ``DiotFeature/heartRate`` is stored as its bit pattern and reads
    /// back as an `.int`.
    ///
    /// - Parameters:
    ///   - channel: The data channel.
    ///   - index: The position within the notification, from 0.
    ///   - feature: The feature code.
    ///   - value: The value to store.
    @inlinable
    public init(channel: DiotChannel, index: Int, feature: DiotFeature, value: DiotValue) {
        self.init(channel: channel, index: index, feature: feature, raw: value.raw)
    }

    /// The typed reading of ``raw`` for ``feature``.
    @inlinable
    public var value: DiotValue {
        DiotValue(feature: feature, raw: raw)
    }

    /// The recorder's numeric view, ``DiotValue/numericValue`` of ``value``,
    /// computed without building the enum (for hot loops).
    @inlinable
    public var numericValue: Double {
        switch feature.valueType {
        case .float: Double(Float(bitPattern: raw))
        case .bool: raw & 0xFF == 0x01 ? 1 : 0
        case .int, .date, nil: Double(raw)
        }
    }

    /// The four value bytes exactly as sent (allocates; use ``raw`` on hot paths).
    public var rawBytes: [UInt8] {
        [
            UInt8(truncatingIfNeeded: raw), UInt8(truncatingIfNeeded: raw >> 8),
            UInt8(truncatingIfNeeded: raw >> 16), UInt8(truncatingIfNeeded: raw >> 24),
        ]
    }

    /// The raw bits read as the Android SDK reads ints: `Int32`.
    @inlinable
    public var int32View: Int32 { Int32(bitPattern: raw) }

    /// The raw bits read as an IEEE-754 binary32, whatever the feature's type
    /// (the Android SDK reads `oxygenAlertTriggerBottom` this way).
    @inlinable
    public var floatView: Float { Float(bitPattern: raw) }
}
