public import Devices

/// How a family's devices show themselves in BLE advertisements.
///
/// Classification (``FamilyRegistry/family(manufacturerData:serviceUUIDs:)``)
/// asks every family's manufacturer-data rule first, then its ``services``,
/// then its ``fallbackServices``, families in registry order.
///
/// ```swift
/// let match = AdvertisementMatch(services: [FjordenGATT.service])
/// ```
public struct AdvertisementMatch: Sendable {
    /// Service UUIDs that identify the family when advertised; also what a
    /// scan for the family filters on.
    public var services: [CharacteristicUUID]
    /// Services that identify the family only when no family's ``services``
    /// matched (DIoT's data service, for devices without manufacturer data).
    public var fallbackServices: [CharacteristicUUID]
    /// Recognises the family in manufacturer data (keyed by company id, as
    /// BlueZ gives it) and returns the device identifier the advertisement
    /// carries, or `""` when it carries none; `nil` when it is not this family's.
    public var identify: (@Sendable ([UInt16: [UInt8]]) -> String?)?

    /// Creates a match.
    public init(
        services: [CharacteristicUUID] = [], fallbackServices: [CharacteristicUUID] = [],
        identify: (@Sendable ([UInt16: [UInt8]]) -> String?)? = nil
    ) {
        self.services = services
        self.fallbackServices = fallbackServices
        self.identify = identify
    }
}
