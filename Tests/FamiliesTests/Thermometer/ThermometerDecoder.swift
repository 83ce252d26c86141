import Devices

/// Decodes the thermometer's notifications: exactly two bytes, a
/// little-endian `int16` of hundredths of a degree.
struct ThermometerDecoder: PacketDecoder {
    /// A notification that is not two bytes on the temperature characteristic.
    struct Failure: Error, Sendable, CustomStringConvertible, Equatable {
        let description: String
    }

    static var family: DeviceFamily { .thermometer }

    mutating func decode(_ notification: RawNotification, emit: (ThermometerReading) -> Void) throws(Failure) {
        guard notification.characteristic == ThermometerGATT.temperature else {
            throw Failure(description: "unknown characteristic \(notification.characteristic)")
        }
        guard notification.bytes.count == 2 else {
            throw Failure(description: "a temperature is 2 bytes, not \(notification.bytes.count)")
        }
        let raw = Int16(bitPattern: UInt16(notification.bytes[0]) | UInt16(notification.bytes[1]) << 8)
        emit(ThermometerReading(celsius: Double(raw) / 100))
    }
}
