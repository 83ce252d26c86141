/// The GATT layout of a Fjorden grip in recorder profile v1.
///
/// ```swift
/// print(FjordenGATT.event)        // f10d0002-0000-4000-8000-00805f9b34fb
/// print(FjordenGATT.batteryLevel) // 00002a19-0000-1000-8000-00805f9b34fb
/// ```
public enum FjordenGATT {
    /// The grip service, `F10D0001-0000-4000-8000-00805F9B34FB`.
    public static let service = CharacteristicUUID(high: 0xF10D_0001_0000_4000, low: 0x8000_0080_5F9B_34FB)
    /// The grip event characteristic (notify, 1 or 2 bytes), `F10D0002-0000-4000-8000-00805F9B34FB`.
    public static let event = CharacteristicUUID(high: 0xF10D_0002_0000_4000, low: 0x8000_0080_5F9B_34FB)
    /// Battery service (180F).
    public static let batteryService = CharacteristicUUID(short: 0x180F)
    /// 2A19: battery level, `UInt8` percent 0…100.
    public static let batteryLevel = CharacteristicUUID(short: 0x2A19)
    /// Device information service (180A); its characteristics are listed in
    /// ``FjordenDeviceInformation/Field``.
    public static let deviceInformationService = CharacteristicUUID(short: 0x180A)
}
