extension DiotWire {
    /// Encodes a C001 features reply: each setting as a 5-byte record, in order.
    ///
    /// ```swift
    /// print(DiotWire.encode(featureSettings: [DiotFeatureSetting(index: 0, feature: .heartRate, raw: 72)]))
    /// // [4, 72, 0, 0, 0]
    /// ```
    ///
    /// - Parameter featureSettings: The settings; their indices are not encoded.
    /// - Returns: `5 × n` bytes.
    public static func encode(featureSettings: some Sequence<DiotFeatureSetting>) -> [UInt8] {
        var bytes: [UInt8] = []
        for setting in featureSettings {
            append(feature: setting.feature, raw: setting.raw, to: &bytes)
        }
        return bytes
    }

    /// Encodes a C002 channels reply: `<channel> <feature code>` per binding.
    ///
    /// ```swift
    /// print(DiotWire.encode(channelBindings: [(DiotChannel(1)!, .accX), (DiotChannel(2)!, .accY)])) // [1, 9, 2, 10]
    /// ```
    ///
    /// - Parameter channelBindings: The bindings, in order.
    /// - Returns: `2 × n` bytes.
    public static func encode(channelBindings: [(channel: DiotChannel, feature: DiotFeature)]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(channelBindings.count * 2)
        for binding in channelBindings {
            bytes.append(binding.channel.rawValue)
            bytes.append(binding.feature.rawValue)
        }
        return bytes
    }

    /// Encodes a C003 rates reply: `<channel> <rate u32 ms>` per channel.
    ///
    /// ```swift
    /// print(DiotWire.encode(channelRates: [(DiotChannel(1)!, 100)])) // [1, 100, 0, 0, 0]
    /// ```
    ///
    /// - Parameter channelRates: The periods in milliseconds (0 = auto), in order.
    /// - Returns: `5 × n` bytes.
    public static func encode(channelRates: [(channel: DiotChannel, milliseconds: UInt32)]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(channelRates.count * 5)
        for rate in channelRates {
            // The rate entry has the record layout with the channel in the code byte.
            append(feature: DiotFeature(rawValue: rate.channel.rawValue), raw: rate.milliseconds, to: &bytes)
        }
        return bytes
    }
}
