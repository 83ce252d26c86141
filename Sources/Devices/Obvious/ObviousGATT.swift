/// The GATT layout of an Obvious device in recorder profile v1.
///
/// One vendor service with one notifying data characteristic; every
/// notification is a 1-byte record type and its body (see ``ObviousDecoder``).
///
/// ```swift
/// print(ObviousGATT.data) // 0b710002-0000-4000-8000-00805f9b34fb
/// ```
public enum ObviousGATT {
    /// The feature-management service, `0B710001-0000-4000-8000-00805F9B34FB`.
    public static let service = CharacteristicUUID(high: 0x0B71_0001_0000_4000, low: 0x8000_0080_5F9B_34FB)
    /// The data characteristic (notify), `0B710002-0000-4000-8000-00805F9B34FB`.
    public static let data = CharacteristicUUID(high: 0x0B71_0002_0000_4000, low: 0x8000_0080_5F9B_34FB)
}
