/// The manufacturer data a DIoT device advertises: company identifier
/// 0x04F7 (little-endian `F7 04`) followed by the 16-byte device UUID.
///
/// ```swift
/// let advert = DiotAdvertisement(deviceUUID: Array(0..<16))!
/// print(advert.manufacturerData.prefix(2)) // [247, 4]
/// let parsed = DiotAdvertisement.parse(manufacturerData: advert.manufacturerData)
/// print(parsed?.deviceIdentifier ?? "-") // 000102030405060708090a0b0c0d0e0f
/// ```
public struct DiotAdvertisement: Sendable, Hashable {
    /// Daatrics' Bluetooth SIG company identifier, 0x04F7 (1271).
    public static let companyID: UInt16 = 0x04F7

    /// The 16-byte device UUID, in the order advertised.
    public let deviceUUID: [UInt8]

    /// Creates an advertisement for a device UUID.
    ///
    /// - Parameter deviceUUID: Exactly 16 bytes; `nil` otherwise.
    public init?(deviceUUID: [UInt8]) {
        guard deviceUUID.count == 16 else { return nil }
        self.deviceUUID = deviceUUID
    }

    /// Parses manufacturer data.
    ///
    /// - Parameter manufacturerData: The advertised manufacturer-specific data,
    ///   company identifier included.
    /// - Returns: The advertisement, or `nil` unless the data is exactly
    ///   `F7 04` followed by 16 bytes.
    public static func parse(manufacturerData: [UInt8]) -> DiotAdvertisement? {
        guard manufacturerData.count == 18,
            manufacturerData[0] == UInt8(truncatingIfNeeded: companyID),
            manufacturerData[1] == UInt8(truncatingIfNeeded: companyID >> 8)
        else { return nil }
        return DiotAdvertisement(deviceUUID: Array(manufacturerData[2...]))
    }

    /// The manufacturer data bytes: `F7 04` and the device UUID (18 bytes).
    public var manufacturerData: [UInt8] {
        [UInt8(truncatingIfNeeded: Self.companyID), UInt8(truncatingIfNeeded: Self.companyID >> 8)] + deviceUUID
    }

    /// The device UUID as 32 lower-case hex digits, the device's identifier in topics.
    public var deviceIdentifier: String {
        hex(deviceUUID)
    }

    /// A display name, `"DIoT-"` and the last two UUID bytes in upper-case
    /// hex, for example `"DIoT-9F3A"`.
    public var deviceName: String {
        "DIoT-" + hex(deviceUUID.suffix(2)).uppercased()
    }
}
