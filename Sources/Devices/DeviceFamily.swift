/// The device families the recorder understands.
///
/// The raw value is the family's name in topics (`/<family>/<device>/<stream>`)
/// and on the command line.
public enum DeviceFamily: String, Sendable, Hashable, CaseIterable, Codable {
    /// Daatrics DIoT sensors: nine data channels of 5-byte feature records.
    case diot
    /// Comodule vehicle modules: range, state and raw properties.
    case comodule
    /// Google Jacquard tags: gestures, touch frames and IMU samples.
    case jacquard
    /// Fjorden camera grips: button and dial events.
    case fjorden
    /// Obvious feature management: feature status and firmware upgrades.
    case obvious
}
