public import DeviceRecording
public import Devices
public import ROS2
public import Recording

/// How Fjorden values are recorded: grip events on `/fjorden/<device>/grip`
/// (`tlm/msg/FjordenGripEvent`), the battery on `battery`
/// (`tlm/msg/BatteryLevel`) and device information strings on
/// `device_information` (`tlm/msg/DeviceInformation`).
extension FjordenValue: RecordableValue {
    public static let gripSchema = MessageSchema(
        name: "tlm/msg/FjordenGripEvent",
        text: """
            # A grip event; repeat_count is the number of dial detents (1 when the packet has no count byte).
            uint8 code
            string event
            uint8 repeat_count
            """)
    public static let batterySchema = MessageSchema(
        name: "tlm/msg/BatteryLevel",
        text: """
            # Battery level in percent; is_low below 30.
            uint8 percent
            bool is_low
            """)
    public static let deviceInformationSchema = MessageSchema(
        name: "tlm/msg/DeviceInformation",
        text: """
            string field
            string value
            """)

    public var streamKey: Int {
        switch self {
        case .gripEvent: 0
        case .batteryLevel: 1
        case .deviceInformation: 2
        }
    }

    public var streamSpec: RecordedStream {
        switch self {
        case .gripEvent: RecordedStream(name: "grip", kind: .event, schema: Self.gripSchema)
        case .batteryLevel: RecordedStream(name: "battery", schema: Self.batterySchema, unit: "%", isLatched: true)
        case .deviceInformation:
            RecordedStream(name: "device_information", schema: Self.deviceInformationSchema, isLatched: true)
        }
    }

    public func encode(into cdr: inout CDRWriter) -> Double? {
        switch self {
        case .gripEvent(let grip):
            cdr.write(grip.event.code)
            cdr.write(grip.event.description)
            cdr.write(grip.repeatCount)
        case .batteryLevel(let battery):
            cdr.write(battery.percent)
            cdr.write(battery.isLow)
        case .deviceInformation(let information):
            cdr.write(information.field.rawValue)
            cdr.write(information.value)
        }
        return nil
    }
}
