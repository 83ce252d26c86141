/// Which device information string (service 180A) a DIoT value came from.
///
/// The raw value is the field's lower-camel-case name, used in JSON and in
/// recorded `tlm/msg/DeviceInformation` messages.
///
/// ```swift
/// let field = DiotDeviceInformationField(characteristic: CharacteristicUUID(short: 0x2A26))
/// print(field?.rawValue ?? "-") // firmwareRevision
/// ```
public enum DiotDeviceInformationField: String, Sendable, Hashable, CaseIterable, Codable {
    /// 2A29: manufacturer name.
    case manufacturerName
    /// 2A24: model number.
    case modelNumber
    /// 2A27: hardware revision.
    case hardwareRevision
    /// 2A26: firmware revision.
    case firmwareRevision
    /// 2A28: software revision.
    case softwareRevision

    /// The characteristic that carries this field.
    public var characteristic: CharacteristicUUID {
        switch self {
        case .manufacturerName: DiotGATT.manufacturerName
        case .modelNumber: DiotGATT.modelNumber
        case .hardwareRevision: DiotGATT.hardwareRevision
        case .firmwareRevision: DiotGATT.firmwareRevision
        case .softwareRevision: DiotGATT.softwareRevision
        }
    }

    /// The field a characteristic carries.
    ///
    /// - Parameter characteristic: A characteristic UUID.
    /// - Returns: `nil` unless it is 2A29, 2A24, 2A27, 2A26 or 2A28.
    public init?(characteristic: CharacteristicUUID) {
        guard let field = Self.allCases.first(where: { $0.characteristic == characteristic }) else { return nil }
        self = field
    }
}
