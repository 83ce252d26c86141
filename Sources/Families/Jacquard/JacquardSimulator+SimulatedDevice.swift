public import Devices

extension JacquardSimulator: SimulatedDevice {
    /// `DeviceFamily.jacquard`.
    public var family: DeviceFamily { .jacquard }
    /// The tag UUID without dashes, lowercase.
    public var identifier: String { tagUUID.filter { $0 != "-" }.lowercased() }
    /// `Jacquard-` and the identifier's last four digits.
    public var displayName: String { "Jacquard-" + identifier.suffix(4).uppercased() }
    /// The tag UUID, vendor and product ids.
    public var facts: [String: String] {
        ["tag_uuid": tagUUID, "vendor_id": String(vendorID), "product_id": String(productID)]
    }
}
