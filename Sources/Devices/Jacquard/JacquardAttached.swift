/// The Attached notification payload (extension 109): gear attached to or
/// detached from the tag.
///
/// The `Codable` form: `{"attach_state":true,"vendor_id":…,"product_id":…,"component_id":1}`.
///
/// ```swift
/// let attached = JacquardAttached(attachState: true, vendorID: 0x1234, productID: 0x5678, componentID: 1)
/// print(attached.attachState) // true
/// ```
public struct JacquardAttached: Sendable, Hashable, Codable {
    /// `attach_state` (field 1): `true` attached, `false` detached.
    public var attachState: Bool
    /// `vendor_id` (field 2) of the gear.
    public var vendorID: UInt32
    /// `product_id` (field 3) of the gear.
    public var productID: UInt32
    /// `component_id` (field 4) the gear was given.
    public var componentID: UInt32

    /// Creates an attach or detach notification.
    ///
    /// - Parameters:
    ///   - attachState: `true` attached, `false` detached.
    ///   - vendorID: The gear's vendor id.
    ///   - productID: The gear's product id.
    ///   - componentID: The gear's component id.
    @inlinable
    public init(attachState: Bool, vendorID: UInt32, productID: UInt32, componentID: UInt32) {
        self.attachState = attachState
        self.vendorID = vendorID
        self.productID = productID
        self.componentID = componentID
    }

    enum CodingKeys: String, CodingKey {
        case attachState = "attach_state"
        case vendorID = "vendor_id"
        case productID = "product_id"
        case componentID = "component_id"
    }
}
