public import Devices
package import ROS2

/// The recorded form of a raw notification: schema `tlm/msg/RawNotification`
/// (`ros2msg`, CDR), one stream per characteristic
/// (`/<family>/<device>/raw/<uuid>`). It carries the bytes, the
/// characteristic and the receive time, so a recording can be decoded again.
public enum RawNotificationMessage {
    /// The schema.
    public static let schema = MessageSchema(
        name: "tlm/msg/RawNotification",
        text: """
            # A BLE notification exactly as received.
            string characteristic
            uint64 receive_time
            uint8[] data
            """)

    /// Decodes a recorded raw notification; `nil` for a payload that is not one.
    public static func decode(_ payload: [UInt8]) -> RawNotification? {
        guard var reader = CDRReader(payload), let text = reader.string(),
            let characteristic = CharacteristicUUID(text),
            let time = reader.uint64(), let bytes = reader.byteSequence()
        else { return nil }
        return RawNotification(characteristic: characteristic, bytes: bytes, receiveTime: time)
    }

    /// Encodes a notification.
    public static func encode(_ notification: RawNotification) -> [UInt8] {
        var cdr = CDRWriter(capacity: 64 + notification.bytes.count)
        encode(notification, characteristic: notification.characteristic.description, into: &cdr)
        return cdr.bytes
    }

    /// Encodes a notification into `cdr` (reset first), with its
    /// characteristic's text given (a recorder formats it once per stream).
    package static func encode(_ notification: RawNotification, characteristic: String, into cdr: inout CDRWriter) {
        cdr.reset()
        cdr.write(characteristic)
        cdr.write(notification.receiveTime)
        cdr.writeSequence(notification.bytes)
    }
}
