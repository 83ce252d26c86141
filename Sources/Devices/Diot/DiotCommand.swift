/// A write to the DIoT command interface (C001 features, C002 channels,
/// C003 rates): byte 0 is the opcode, `01` fetch, `02` set, `03` clear.
///
/// | Command | Characteristic | Bytes |
/// |---|---|---|
/// | ``fetchFeatures`` / ``fetchFeature(_:)`` | C001 | `01` / `01 <code>` |
/// | ``setFeature(_:raw:)`` | C001 | `02 <code> <value4 LE>` |
/// | ``clearFeatures`` / ``clearFeature(_:)`` | C001 | `03` / `03 <code>` |
/// | ``fetchChannels`` / ``fetchChannel(_:)`` | C002 | `01` / `01 <ch>` |
/// | ``bindChannel(_:to:)`` | C002 | `02 <ch> <code>` |
/// | ``clearChannels`` / ``clearChannel(_:)`` | C002 | `03` / `03 <ch>` |
/// | ``fetchRates`` / ``fetchRate(_:)`` | C003 | `01` / `01 <ch>` |
/// | ``setRate(_:milliseconds:)`` | C003 | `02 <ch> <rate u32 LE>` (0 = auto) |
/// | ``clearRates`` / ``clearRate(_:)`` | C003 | `03` / `03 <ch>` |
///
/// The device replies with a notification on the same characteristic,
/// decoded by ``DiotDecoder/decodeEvents(_:from:emit:)``.
///
/// ```swift
/// let command = DiotCommand.bindChannel(DiotChannel(1)!, to: .accX)
/// print(command.characteristic == DiotGATT.channelsCommand) // true
/// print(command.bytes)                                      // [2, 1, 9]
/// print(DiotCommand.setRate(DiotChannel(1)!, milliseconds: 100).bytes) // [2, 1, 100, 0, 0, 0]
/// ```
public enum DiotCommand: Sendable, Hashable {
    /// Fetch every feature setting (C001 `01`).
    case fetchFeatures
    /// Fetch one feature setting (C001 `01 <code>`).
    case fetchFeature(DiotFeature)
    /// Set a feature's value (C001 `02 <code> <value4>`), the four value bytes
    /// little-endian.
    case setFeature(DiotFeature, raw: UInt32)
    /// Clear every feature setting (C001 `03`).
    case clearFeatures
    /// Clear one feature setting (C001 `03 <code>`).
    case clearFeature(DiotFeature)
    /// Fetch every channel binding (C002 `01`).
    case fetchChannels
    /// Fetch one channel's binding (C002 `01 <ch>`).
    case fetchChannel(DiotChannel)
    /// Bind a feature to a channel (C002 `02 <ch> <code>`).
    case bindChannel(DiotChannel, to: DiotFeature)
    /// Clear every channel binding (C002 `03`).
    case clearChannels
    /// Clear one channel's binding (C002 `03 <ch>`).
    case clearChannel(DiotChannel)
    /// Fetch every channel rate (C003 `01`).
    case fetchRates
    /// Fetch one channel's rate (C003 `01 <ch>`).
    case fetchRate(DiotChannel)
    /// Set a channel's notification period in milliseconds, 0 for automatic
    /// (C003 `02 <ch> <rate u32>`).
    case setRate(DiotChannel, milliseconds: UInt32)
    /// Clear every channel rate (C003 `03`).
    case clearRates
    /// Clear one channel's rate (C003 `03 <ch>`).
    case clearRate(DiotChannel)

    /// The opcode byte: fetch `01`, set `02` (including bind), clear `03`.
    public static let fetchOpcode: UInt8 = 0x01
    /// The opcode of set and bind commands.
    public static let setOpcode: UInt8 = 0x02
    /// The opcode of clear commands.
    public static let clearOpcode: UInt8 = 0x03

    /// A set-feature command from a typed value, written as its canonical
    /// bits (``DiotValue/raw``).
    ///
    /// ```swift
    /// print(DiotCommand.setFeature(.temperatureAlertTriggerTop, value: .float(38)).bytes) // [2, 33, 0, 0, 24, 66]
    /// ```
    ///
    /// - Parameters:
    ///   - feature: The feature to set.
    ///   - value: Its new value.
    /// - Returns: ``setFeature(_:raw:)`` with `value.raw`.
    public static func setFeature(_ feature: DiotFeature, value: DiotValue) -> DiotCommand {
        .setFeature(feature, raw: value.raw)
    }

    /// The command characteristic to write to: C001, C002 or C003.
    public var characteristic: CharacteristicUUID {
        switch self {
        case .fetchFeatures, .fetchFeature, .setFeature, .clearFeatures, .clearFeature:
            DiotGATT.featuresCommand
        case .fetchChannels, .fetchChannel, .bindChannel, .clearChannels, .clearChannel:
            DiotGATT.channelsCommand
        case .fetchRates, .fetchRate, .setRate, .clearRates, .clearRate:
            DiotGATT.ratesCommand
        }
    }

    /// The bytes to write (without response) to ``characteristic``.
    public var bytes: [UInt8] {
        func littleEndian(_ value: UInt32) -> [UInt8] {
            [
                UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8),
                UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 24),
            ]
        }
        return switch self {
        case .fetchFeatures, .fetchChannels, .fetchRates: [Self.fetchOpcode]
        case .clearFeatures, .clearChannels, .clearRates: [Self.clearOpcode]
        case .fetchFeature(let feature): [Self.fetchOpcode, feature.rawValue]
        case .clearFeature(let feature): [Self.clearOpcode, feature.rawValue]
        case .fetchChannel(let channel), .fetchRate(let channel): [Self.fetchOpcode, channel.rawValue]
        case .clearChannel(let channel), .clearRate(let channel): [Self.clearOpcode, channel.rawValue]
        case .setFeature(let feature, let raw): [Self.setOpcode, feature.rawValue] + littleEndian(raw)
        case .bindChannel(let channel, let feature): [Self.setOpcode, channel.rawValue, feature.rawValue]
        case .setRate(let channel, let milliseconds): [Self.setOpcode, channel.rawValue] + littleEndian(milliseconds)
        }
    }
}
