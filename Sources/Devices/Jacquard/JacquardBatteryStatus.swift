/// The BatteryStatus payload (extension 121), on a notification or a response.
///
/// The `Codable` form: `{"battery_level":50,"charging_status":"notCharging"}`.
///
/// ```swift
/// var decoder = JacquardDecoder()
/// let bytes: [UInt8] = [0xC0, 0x0D, 0x08, 0x00, 0x10, 0x17, 0x18, 0x00, 0xCA, 0x07, 0x04, 0x08, 0x32, 0x10, 0x02]
/// try decoder.decode(bytes, from: JacquardGATT.notify) { value in
///     if case .batteryStatus(let status) = value {
///         print(status.batteryLevel, status.chargingStatus) // 50 notCharging
///     }
/// }
/// ```
public struct JacquardBatteryStatus: Sendable, Hashable, Codable {
    /// `battery_level` (field 1), percent.
    public var batteryLevel: UInt32
    /// `charging_status` (field 2).
    public var chargingStatus: JacquardChargingStatus

    /// Creates a battery status.
    ///
    /// - Parameters:
    ///   - batteryLevel: Percent.
    ///   - chargingStatus: Charging or not.
    @inlinable
    public init(batteryLevel: UInt32, chargingStatus: JacquardChargingStatus) {
        self.batteryLevel = batteryLevel
        self.chargingStatus = chargingStatus
    }

    enum CodingKeys: String, CodingKey {
        case batteryLevel = "battery_level"
        case chargingStatus = "charging_status"
    }
}
