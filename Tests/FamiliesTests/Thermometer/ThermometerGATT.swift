import Devices

/// The toy thermometer's GATT layout: one service, one notifying characteristic.
enum ThermometerGATT {
    /// The service the thermometer advertises.
    static let service = CharacteristicUUID(short: 0xFEE0)
    /// Notifies the temperature: an `int16`, little-endian, in hundredths of a degree Celsius.
    static let temperature = CharacteristicUUID(short: 0xFEE1)
}
