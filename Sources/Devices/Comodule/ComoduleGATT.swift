/// The GATT layout of a Comodule module in recorder profile v1.
///
/// ```swift
/// print(ComoduleGATT.propertyStream) // c0de0002-0000-4000-8000-00805f9b34fb
/// ```
public enum ComoduleGATT {
    /// The vendor service, `C0DE0001-0000-4000-8000-00805F9B34FB`.
    public static let service = CharacteristicUUID(high: 0xC0DE_0001_0000_4000, low: 0x8000_0080_5F9B_34FB)
    /// The property stream characteristic (notify; one property update per
    /// notification), `C0DE0002-0000-4000-8000-00805F9B34FB`.
    public static let propertyStream = CharacteristicUUID(high: 0xC0DE_0002_0000_4000, low: 0x8000_0080_5F9B_34FB)
}
