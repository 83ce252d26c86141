/// A Response envelope from the response characteristic: the request `id`
/// it answers, its `status`, the `component_id`, and the payload extension
/// when the decoder knows it (Hello 100, DeviceInfo 103, BatteryStatus 121).
///
/// The `Codable` form flattens the payload under its name:
/// `{"id":1,"status":"ok","component_id":0,"hello":{…}}`.
///
/// ```swift
/// let battery = JacquardBatteryStatus(batteryLevel: 80, chargingStatus: .charging)
/// let response = JacquardResponse(id: 3, status: .ok, componentID: 0, payload: .batteryStatus(battery))
/// print(response.status) // ok
/// ```
public struct JacquardResponse: Sendable, Hashable, Codable {
    /// A response payload the decoder knows.
    public enum Payload: Sendable, Hashable {
        /// Extension 100.
        case hello(JacquardHello)
        /// Extension 103.
        case deviceInfo(JacquardDeviceInfo)
        /// Extension 121.
        case batteryStatus(JacquardBatteryStatus)
    }

    /// `id` (field 1): the id of the request this answers.
    public var id: UInt32
    /// `status` (field 2; `ok` when absent).
    public var status: JacquardStatus
    /// `component_id` (field 3; 0 when absent).
    public var componentID: UInt32
    /// The payload, or `nil` when the response carries none the decoder knows.
    public var payload: Payload?

    /// Creates a response.
    ///
    /// - Parameters:
    ///   - id: The request id.
    ///   - status: The status.
    ///   - componentID: The component that answered.
    ///   - payload: The payload, if any.
    public init(id: UInt32, status: JacquardStatus, componentID: UInt32 = 0, payload: Payload? = nil) {
        self.id = id
        self.status = status
        self.componentID = componentID
        self.payload = payload
    }

    enum CodingKeys: String, CodingKey {
        case id, status
        case componentID = "component_id"
        case hello
        case deviceInfo = "device_info"
        case batteryStatus = "battery_status"
    }

    /// Encodes the envelope's fields and the payload under its name.
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(status, forKey: .status)
        try container.encode(componentID, forKey: .componentID)
        switch payload {
        case .hello(let hello): try container.encode(hello, forKey: .hello)
        case .deviceInfo(let info): try container.encode(info, forKey: .deviceInfo)
        case .batteryStatus(let status): try container.encode(status, forKey: .batteryStatus)
        case nil: break
        }
    }

    /// Decodes a response written by ``encode(to:)``.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: `DecodingError` when a field is missing or malformed.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var payload: Payload?
        if let hello = try container.decodeIfPresent(JacquardHello.self, forKey: .hello) {
            payload = .hello(hello)
        } else if let info = try container.decodeIfPresent(JacquardDeviceInfo.self, forKey: .deviceInfo) {
            payload = .deviceInfo(info)
        } else if let status = try container.decodeIfPresent(JacquardBatteryStatus.self, forKey: .batteryStatus) {
            payload = .batteryStatus(status)
        }
        self.init(
            id: try container.decode(UInt32.self, forKey: .id),
            status: try container.decode(JacquardStatus.self, forKey: .status),
            componentID: try container.decodeIfPresent(UInt32.self, forKey: .componentID) ?? 0,
            payload: payload
        )
    }
}
