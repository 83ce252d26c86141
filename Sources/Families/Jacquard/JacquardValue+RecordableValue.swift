import DeviceClocks
public import DeviceRecording
public import Devices
import Foundation
public import ROS2
public import Recording

/// How Jacquard values are recorded: one stream per kind of value
/// (`/jacquard/<device>/gesture`, `touch`, `imu`, `battery`, `attached`,
/// `disconnect`, `error`, `response`, `notification`), each with its
/// `tlm/msg/Jacquard*` schema. IMU samples keep raw counts.
extension JacquardValue: RecordableValue {
    /// The schemas, by stream name.
    public static let schemas: [String: MessageSchema] = [
        "gesture": MessageSchema(
            name: "tlm/msg/JacquardGesture",
            text: """
                # A gesture (inference event); gesture is the SDK name, empty for an unknown id.
                int32 gesture_id
                string gesture
                uint32 component_id
                uint32 timestamp_ticks
                """),
        "touch": MessageSchema(
            name: "tlm/msg/JacquardTouch",
            text: """
                # A touch frame: proximity and 12 line intensities (0...128); sequence gaps are normal.
                uint32 sequence
                uint8 proximity
                uint8[12] lines
                uint32 component_id
                uint32 timestamp_ticks
                """),
        "imu": MessageSchema(
            name: "tlm/msg/JacquardImu",
            text: """
                # One IMU sample in raw counts (scaling depends on the session's range settings).
                uint8 sensor_id
                int16 accel_x
                int16 accel_y
                int16 accel_z
                int16 gyro_x
                int16 gyro_y
                int16 gyro_z
                uint32 timestamp_ticks
                """),
        "battery": MessageSchema(
            name: "tlm/msg/JacquardBattery",
            text: """
                uint32 battery_level
                string charging_status
                int32 charging_status_code
                """),
        "attached": MessageSchema(
            name: "tlm/msg/JacquardAttached",
            text: """
                bool attach_state
                uint32 vendor_id
                uint32 product_id
                uint32 component_id
                """),
        "disconnect": MessageSchema(
            name: "tlm/msg/JacquardDisconnect",
            text: """
                bool reconnect
                """),
        "error": MessageSchema(
            name: "tlm/msg/JacquardError",
            text: """
                uint32 device
                uint32 subsystem
                uint32 errorcode
                """),
        "response": MessageSchema(
            name: "tlm/msg/JacquardResponse",
            text: """
                # A response envelope; payload_json is the Hello/DeviceInfo/BatteryStatus payload as JSON, or empty.
                uint32 id
                string status
                int32 status_code
                uint32 component_id
                string payload_json
                """),
        "notification": MessageSchema(
            name: "tlm/msg/JacquardNotification",
            text: """
                # A notification envelope whose payload the decoder does not know.
                string domain
                int32 domain_code
                int32 opcode
                uint32 component_id
                """),
    ]

    private static let names = [
        "gesture", "touch", "imu", "battery", "attached", "disconnect", "error",
        "response", "notification",
    ]

    /// The streams that are latched: the battery status and the attached
    /// component are state, reported on change; the rest are samples or events.
    private static let latched: Set<String> = ["battery", "attached"]

    public var streamKey: Int {
        switch self {
        case .gesture: 0
        case .touchFrame: 1
        case .imuSample: 2
        case .batteryStatus: 3
        case .attached: 4
        case .disconnect: 5
        case .error: 6
        case .response: 7
        case .notification: 8
        }
    }

    public var streamSpec: RecordedStream {
        let name = Self.names[streamKey]
        return RecordedStream(
            name: name, kind: .typed, schema: Self.schemas[name]!, isLatched: Self.latched.contains(name))
    }

    public func encode(into cdr: inout CDRWriter) -> Double? {
        switch self {
        case .gesture(let event):
            cdr.write(event.gesture.id)
            cdr.write(event.gesture.name ?? "")
            cdr.write(event.componentID)
            cdr.write(event.timestampTicks)
        case .touchFrame(let frame):
            cdr.write(frame.sequence)
            cdr.write(frame.proximity)
            cdr.writeArray(frame.lines)
            cdr.write(frame.componentID)
            cdr.write(frame.timestampTicks)
        case .imuSample(let sample):
            cdr.write(sample.sensorID)
            for value in [sample.accelX, sample.accelY, sample.accelZ, sample.gyroX, sample.gyroY, sample.gyroZ] {
                cdr.write(value)
            }
            cdr.write(sample.timestampTicks)
        case .batteryStatus(let battery):
            cdr.write(battery.batteryLevel)
            cdr.write(battery.chargingStatus.description)
            cdr.write(battery.chargingStatus.rawValue)
        case .attached(let attached):
            cdr.write(attached.attachState)
            cdr.write(attached.vendorID)
            cdr.write(attached.productID)
            cdr.write(attached.componentID)
        case .disconnect(let disconnect):
            cdr.write(disconnect.reconnect)
        case .error(let error):
            cdr.write(error.device)
            cdr.write(error.subsystem)
            cdr.write(error.errorCode)
        case .response(let response):
            cdr.write(response.id)
            cdr.write(response.status.description)
            cdr.write(response.status.rawValue)
            cdr.write(response.componentID)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let payload: Data? =
                switch response.payload {
                case .hello(let hello)?: try? encoder.encode(["hello": hello])
                case .deviceInfo(let info)?: try? encoder.encode(["device_info": info])
                case .batteryStatus(let battery)?: try? encoder.encode(["battery_status": battery])
                case nil: nil
                }
            cdr.write(payload.map { String(decoding: $0, as: UTF8.self) } ?? "")
        case .notification(let notification):
            cdr.write(notification.domain.description)
            cdr.write(notification.domain.rawValue)
            cdr.write(notification.opcode)
            cdr.write(notification.componentID)
        }
        return nil
    }
}

extension JacquardValue {
    /// IMU samples are timed by their `timestamp_ticks` on the tag's clock
    /// (key 0, `imu`: 1 kHz, 32 bits, see `docs/time.md`); gestures, touch
    /// frames and everything else keep their receive time.
    public var sampleTiming: SampleTiming {
        if case .imuSample(let sample) = self { return .ticks(UInt64(sample.timestampTicks), clock: 0) }
        return .receive
    }

    /// The IMU's tick clock.
    public static func sampleClock(_ key: Int) -> SampleClock? {
        key == 0 ? SampleClock(name: "imu", kind: .ticks(.jacquardIMU)) : nil
    }
}
