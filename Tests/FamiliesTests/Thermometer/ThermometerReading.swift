import DeviceRecording
import Devices
import ROS2
import Recording

/// One temperature the thermometer reported.
struct ThermometerReading: Sendable, Hashable, Encodable {
    /// Degrees Celsius.
    var celsius: Double
}

extension ThermometerReading: RecordableValue {
    /// Its schema: the value first, so the index keeps statistics of it.
    static let schema = MessageSchema(name: "toy/msg/Temperature", text: "float64 value\n")

    var streamKey: Int { 0 }

    var streamSpec: RecordedStream {
        RecordedStream(name: "temperature", schema: Self.schema, unit: "celsius", isNumeric: true)
    }

    func encode(into cdr: inout CDRWriter) -> Double? {
        cdr.write(celsius)
        return celsius
    }
}
