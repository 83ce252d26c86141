/// The GATT layout of a DIoT device: services, characteristics and the
/// mapping between data characteristics (D001…D009) and channels (1…9).
///
/// All UUIDs are 16-bit numbers on the Bluetooth base UUID.
///
/// ```swift
/// let d003 = CharacteristicUUID(short: 0xD003)
/// print(DiotGATT.dataChannel(for: d003)?.description ?? "none") // ch3
/// print(DiotGATT.dataChannel(for: DiotGATT.batteryLevel) == nil) // true
/// ```
public enum DiotGATT {
    // MARK: Services

    /// Command interface service (C000).
    public static let commandService = CharacteristicUUID(short: 0xC000)
    /// Data interface service (D000), holding the nine data channels.
    public static let dataService = CharacteristicUUID(short: 0xD000)
    /// Battery service (180F).
    public static let batteryService = CharacteristicUUID(short: 0x180F)
    /// Device information service (180A).
    public static let deviceInformationService = CharacteristicUUID(short: 0x180A)
    /// Device identifier service (FFD0).
    public static let deviceIdentifierService = CharacteristicUUID(short: 0xFFD0)
    /// Debug command-line service (FF70).
    public static let debugService = CharacteristicUUID(short: 0xFF70)

    // MARK: Command interface

    /// C001: features (fetch, set, clear; replies are 5-byte feature records).
    public static let featuresCommand = CharacteristicUUID(short: 0xC001)
    /// C002: channel bindings (replies are `<channel> <feature code>` pairs).
    public static let channelsCommand = CharacteristicUUID(short: 0xC002)
    /// C003: channel rates (replies are `<channel> <rate u32 ms>`, 0 = auto).
    public static let ratesCommand = CharacteristicUUID(short: 0xC003)

    // MARK: Data interface

    /// D001…D009, the data characteristics of channels 1…9, in channel order.
    public static let dataCharacteristics: [CharacteristicUUID] = DiotChannel.allCases.map(characteristic(for:))

    // MARK: Standard and vendor characteristics

    /// 2A19: battery level, `UInt8` percent.
    public static let batteryLevel = CharacteristicUUID(short: 0x2A19)
    /// 2A29: manufacturer name (UTF-8).
    public static let manufacturerName = CharacteristicUUID(short: 0x2A29)
    /// 2A24: model number (UTF-8).
    public static let modelNumber = CharacteristicUUID(short: 0x2A24)
    /// 2A27: hardware revision (UTF-8).
    public static let hardwareRevision = CharacteristicUUID(short: 0x2A27)
    /// 2A26: firmware revision (UTF-8).
    public static let firmwareRevision = CharacteristicUUID(short: 0x2A26)
    /// 2A28: software revision (UTF-8).
    public static let softwareRevision = CharacteristicUUID(short: 0x2A28)
    /// FFD1: chip identifier (raw bytes, shown as hex).
    public static let chipID = CharacteristicUUID(short: 0xFFD1)
    /// FF71: debug log, ASCII lines (notify).
    public static let debugLog = CharacteristicUUID(short: 0xFF71)

    // MARK: Channel mapping

    /// The data channel a characteristic carries, or `nil` if it is not one
    /// of D001…D009.
    ///
    /// - Parameter characteristic: The characteristic that notified.
    /// - Returns: Channel 1…9 for D001…D009, otherwise `nil`.
    @inlinable
    public static func dataChannel(for characteristic: CharacteristicUUID) -> DiotChannel? {
        // 0000Dxxx-0000-1000-8000-00805f9b34fb with the last hex digit of the short UUID free.
        guard characteristic.low == 0x8000_0080_5F9B_34FB,
            characteristic.high & 0xFFFF_FFF0_FFFF_FFFF == 0x0000_D000_0000_1000
        else { return nil }
        return DiotChannel(rawValue: UInt8(truncatingIfNeeded: characteristic.high >> 32) & 0x0F)
    }

    /// The data characteristic (D001…D009) that notifies a channel.
    ///
    /// - Parameter channel: The channel.
    /// - Returns: `0000d00N-0000-1000-8000-00805f9b34fb` for channel N.
    @inlinable
    public static func characteristic(for channel: DiotChannel) -> CharacteristicUUID {
        CharacteristicUUID(high: UInt64(0xD000 | UInt64(channel.rawValue)) << 32 | 0x1000, low: 0x8000_0080_5F9B_34FB)
    }
}
