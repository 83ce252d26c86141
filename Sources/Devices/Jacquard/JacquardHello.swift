/// The Hello response payload (extension 100): the tag's protocol range and identity.
///
/// The `Codable` form uses the spec's names: `protocol_min`, `protocol_max`,
/// `vendor`, `model`, `vendor_id`, `product_id`.
///
/// ```swift
/// let hello = JacquardHello(protocolMin: 2, protocolMax: 2, vendor: "Google", model: "Tag", vendorID: 1, productID: 2)
/// print(hello.model) // Tag
/// ```
public struct JacquardHello: Sendable, Hashable, Codable {
    /// `protocol_min` (field 1).
    public var protocolMin: UInt32
    /// `protocol_max` (field 2).
    public var protocolMax: UInt32
    /// `vendor` (field 3), UTF-8 (invalid sequences replaced).
    public var vendor: String
    /// `model` (field 4), UTF-8 (invalid sequences replaced).
    public var model: String
    /// `vendor_id` (field 6).
    public var vendorID: UInt32
    /// `product_id` (field 7).
    public var productID: UInt32

    /// Creates a Hello payload.
    ///
    /// - Parameters:
    ///   - protocolMin: The lowest protocol version supported.
    ///   - protocolMax: The highest protocol version supported.
    ///   - vendor: The vendor name.
    ///   - model: The model name.
    ///   - vendorID: The vendor id.
    ///   - productID: The product id.
    public init(
        protocolMin: UInt32, protocolMax: UInt32, vendor: String, model: String, vendorID: UInt32, productID: UInt32
    ) {
        self.protocolMin = protocolMin
        self.protocolMax = protocolMax
        self.vendor = vendor
        self.model = model
        self.vendorID = vendorID
        self.productID = productID
    }

    enum CodingKeys: String, CodingKey {
        case protocolMin = "protocol_min"
        case protocolMax = "protocol_max"
        case vendor, model
        case vendorID = "vendor_id"
        case productID = "product_id"
    }
}
