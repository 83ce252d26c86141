public import Devices

/// Tells a device's family from its advertisement.
///
/// - DIoT: manufacturer data of company 0x04F7 holding a 16-byte device UUID
///   (the form the DIoT SDKs scan for).
/// - Jacquard: the v2 protocol service `D2F2BF0D-…` among the advertised
///   services (what the Jacquard SDKs scan for).
/// - Comodule, Fjorden, Obvious (recorder profiles v1): their vendor service
///   UUID among the advertised services.
///
/// ```swift
/// let family = AdvertisementClassifier.family(
///     manufacturerData: [0x04F7: Array(repeating: 0xAB, count: 16)], serviceUUIDs: [])
/// print(family == .diot) // true
/// ```
public enum AdvertisementClassifier {
    /// The family an advertisement identifies, or `nil`.
    ///
    /// - Parameters:
    ///   - manufacturerData: Manufacturer data by company id.
    ///   - serviceUUIDs: Advertised service UUIDs (any case).
    /// - Returns: The family, or `nil` when nothing in the advertisement is known.
    public static func family(manufacturerData: [UInt16: [UInt8]], serviceUUIDs: [String]) -> DeviceFamily? {
        if diotAdvertisement(in: manufacturerData) != nil { return .diot }
        let services = Set(serviceUUIDs.compactMap(CharacteristicUUID.init))
        for (family, service) in familyServices where services.contains(service) {
            return family
        }
        return nil
    }

    /// The service each family's devices advertise (DIoT's data service as a
    /// fallback for devices without manufacturer data).
    static let familyServices: [(DeviceFamily, CharacteristicUUID)] = [
        (.jacquard, JacquardGATT.service),
        (.comodule, ComoduleGATT.service),
        (.fjorden, FjordenGATT.service),
        (.obvious, ObviousGATT.service),
        (.diot, DiotGATT.dataService),
    ]

    /// The service UUIDs a scan for these families filters on.
    public static func serviceUUIDs(for families: [DeviceFamily]) -> [String] {
        familyServices.filter { families.contains($0.0) }.map(\.1.description)
    }

    /// The DIoT advertisement in manufacturer data keyed by company id (as
    /// BlueZ gives it: the company id is the key, not part of the bytes).
    static func diotAdvertisement(in manufacturerData: [UInt16: [UInt8]]) -> DiotAdvertisement? {
        let company = DiotAdvertisement.companyID
        guard let data = manufacturerData[company] else { return nil }
        return DiotAdvertisement.parse(
            manufacturerData: [UInt8(truncatingIfNeeded: company), UInt8(truncatingIfNeeded: company >> 8)] + data)
    }
}
