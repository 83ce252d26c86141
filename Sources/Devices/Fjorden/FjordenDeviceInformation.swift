/// One device information string of a Fjorden grip (service 180A).
///
/// Encodes as `{"field": "modelNumber", "value": "Grip G1"}`.
///
/// ```swift
/// let info = FjordenDeviceInformation(field: .firmwareRevision, value: "1.4.0")
/// print(info.field.characteristic) // 00002a26-0000-1000-8000-00805f9b34fb
/// ```
public struct FjordenDeviceInformation: Sendable, Hashable, Codable {
    /// Which device information characteristic a string came from.
    public enum Field: String, Sendable, Hashable, Codable, CaseIterable {
        /// 2A29: manufacturer name.
        case manufacturerName
        /// 2A24: model number.
        case modelNumber
        /// 2A25: serial number.
        case serialNumber
        /// 2A27: hardware revision.
        case hardwareRevision
        /// 2A26: firmware revision.
        case firmwareRevision
        /// 2A28: software revision.
        case softwareRevision

        /// The characteristic that carries this field.
        public var characteristic: CharacteristicUUID {
            switch self {
            case .manufacturerName: CharacteristicUUID(short: 0x2A29)
            case .modelNumber: CharacteristicUUID(short: 0x2A24)
            case .serialNumber: CharacteristicUUID(short: 0x2A25)
            case .hardwareRevision: CharacteristicUUID(short: 0x2A27)
            case .firmwareRevision: CharacteristicUUID(short: 0x2A26)
            case .softwareRevision: CharacteristicUUID(short: 0x2A28)
            }
        }

        /// The field a characteristic carries, or `nil` if it is not one of them.
        ///
        /// - Parameter characteristic: A characteristic UUID.
        public init?(characteristic: CharacteristicUUID) {
            guard let field = Self.allCases.first(where: { $0.characteristic == characteristic }) else { return nil }
            self = field
        }
    }

    /// Which string this is.
    public var field: Field
    /// The string, decoded as UTF-8.
    public var value: String

    /// Creates a device information string.
    ///
    /// - Parameters:
    ///   - field: Which string.
    ///   - value: Its value.
    public init(field: Field, value: String) {
        self.field = field
        self.value = value
    }
}
