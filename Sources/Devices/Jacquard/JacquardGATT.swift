/// The GATT layout of a Jacquard tag (v2 protocol): one service, four
/// characteristics, all sharing the suffix `-D165-445C-B0E1-2D6B642EC57B`.
///
/// ```swift
/// print(JacquardGATT.service)  // d2f2bf0d-d165-445c-b0e1-2d6b642ec57b
/// print(JacquardGATT.notify)   // d2f2b8d1-d165-445c-b0e1-2d6b642ec57b
/// ```
public enum JacquardGATT {
    /// The low 64 bits every Jacquard UUID shares (`-B0E1-2D6B642EC57B`).
    @inlinable
    static var suffixLow: UInt64 { 0xB0E1_2D6B_642E_C57B }
    /// The low 32 bits of the high half every Jacquard UUID shares (`-D165-445C`).
    @inlinable
    static var suffixHigh: UInt64 { 0xD165_445C }

    /// The v2 protocol service, `D2F2BF0D-D165-445C-B0E1-2D6B642EC57B`.
    @inlinable
    public static var service: CharacteristicUUID {
        CharacteristicUUID(high: 0xD2F2_BF0D << 32 | suffixHigh, low: suffixLow)
    }
    /// The command characteristic, `D2F2EABB-…` (app → tag).
    @inlinable
    public static var command: CharacteristicUUID { JacquardCharacteristic.command.uuid }
    /// The response characteristic, `D2F2B8D0-…` (notify).
    @inlinable
    public static var response: CharacteristicUUID { JacquardCharacteristic.response.uuid }
    /// The notify characteristic, `D2F2B8D1-…` (notify).
    @inlinable
    public static var notify: CharacteristicUUID { JacquardCharacteristic.notify.uuid }
    /// The raw-data characteristic, `D2F2B8D2-…` (both ways; the IMU stream).
    @inlinable
    public static var rawData: CharacteristicUUID { JacquardCharacteristic.rawData.uuid }

    /// The four characteristics: command, response, notify, raw data.
    public static let characteristics: [CharacteristicUUID] = JacquardCharacteristic.allCases.map(\.uuid)

    /// The largest notification value, 64 bytes.
    @inlinable
    public static var maximumFragmentLength: Int { 64 }
    /// The largest reassembled message, 1024 bytes.
    @inlinable
    public static var maximumMessageLength: Int { 1024 }
}
