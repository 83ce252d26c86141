public import Devices
public import ROS2

extension ROS2Name {
    /// A characteristic as a topic part: `c_` and its 32 lower-case hex digits.
    ///
    /// ```swift
    /// ROS2Name.characteristicToken(CharacteristicUUID(short: 0xD001))
    /// // "c_0000d00100001000800000805f9b34fb"
    /// ```
    public static func characteristicToken(_ characteristic: CharacteristicUUID) -> String {
        "c_" + characteristic.description.filter { $0 != "-" }
    }
}
