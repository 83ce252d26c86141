/// The DeviceInfo response payload (extension 103).
///
/// Text fields are read as UTF-8 when sent length-delimited, or as the
/// decimal number when sent as an integer (the schema is read off generated
/// code, so the decoder accepts both). The `Codable` form uses the spec's
/// names: `vendor`, `model`, `revision`, `uuid`, `firmware_major`,
/// `firmware_minor`, `firmware_point`, `vendor_id`, `product_id`.
///
/// ```swift
/// let info = JacquardDeviceInfo(vendor: "Google", model: "Tag", revision: "3", uuid: "…",
///                               firmwareMajor: 1, firmwareMinor: 2, firmwarePoint: 3, vendorID: 1, productID: 2)
/// print(info.firmwareVersion) // 1.2.3
/// ```
public struct JacquardDeviceInfo: Sendable, Hashable, Codable {
    /// `vendor` (field 1).
    public var vendor: String
    /// `model` (field 2).
    public var model: String
    /// `revision` (field 3).
    public var revision: String
    /// `uuid` (field 4).
    public var uuid: String
    /// Firmware major version (field 5).
    public var firmwareMajor: UInt32
    /// Firmware minor version (field 6).
    public var firmwareMinor: UInt32
    /// Firmware point version (field 7).
    public var firmwarePoint: UInt32
    /// `vendor_id` (field 11).
    public var vendorID: UInt32
    /// `product_id` (field 12).
    public var productID: UInt32

    /// Creates a DeviceInfo payload.
    ///
    /// - Parameters:
    ///   - vendor: The vendor.
    ///   - model: The model.
    ///   - revision: The hardware revision.
    ///   - uuid: The device's UUID text.
    ///   - firmwareMajor: Firmware major version.
    ///   - firmwareMinor: Firmware minor version.
    ///   - firmwarePoint: Firmware point version.
    ///   - vendorID: The vendor id.
    ///   - productID: The product id.
    public init(
        vendor: String,
        model: String,
        revision: String,
        uuid: String,
        firmwareMajor: UInt32,
        firmwareMinor: UInt32,
        firmwarePoint: UInt32,
        vendorID: UInt32,
        productID: UInt32
    ) {
        self.vendor = vendor
        self.model = model
        self.revision = revision
        self.uuid = uuid
        self.firmwareMajor = firmwareMajor
        self.firmwareMinor = firmwareMinor
        self.firmwarePoint = firmwarePoint
        self.vendorID = vendorID
        self.productID = productID
    }

    /// The firmware version as `major.minor.point`.
    public var firmwareVersion: String { "\(firmwareMajor).\(firmwareMinor).\(firmwarePoint)" }

    enum CodingKeys: String, CodingKey {
        case vendor, model, revision, uuid
        case firmwareMajor = "firmware_major"
        case firmwareMinor = "firmware_minor"
        case firmwarePoint = "firmware_point"
        case vendorID = "vendor_id"
        case productID = "product_id"
    }
}
