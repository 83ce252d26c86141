/// One 16-byte sample of the IMU stream on the raw-data characteristic.
///
/// Values are raw counts; scaling depends on the session's range settings.
/// The `Codable` form: `{"sensor_id":0,"accel_x":-139,…,"gyro_z":0,"timestamp_ticks":3343193}`.
///
/// ```swift
/// let sample = JacquardIMUSample(
///     sensorID: 0, accelX: -139, accelY: 30, accelZ: 2123, gyroX: -21, gyroY: 1, gyroZ: 0, timestampTicks: 3_343_193
/// )
/// print(sample.accelZ) // 2123
/// ```
public struct JacquardIMUSample: Sendable, Hashable, Codable {
    /// The size of one sample on the wire, 16 bytes.
    @inlinable
    public static var size: Int { 16 }

    /// Byte 1 of the notification: 0 IMU, 1 gear.
    public var sensorID: UInt8
    /// Acceleration along x, raw counts.
    public var accelX: Int16
    /// Acceleration along y, raw counts.
    public var accelY: Int16
    /// Acceleration along z, raw counts.
    public var accelZ: Int16
    /// Angular rate about x, raw counts.
    public var gyroX: Int16
    /// Angular rate about y, raw counts.
    public var gyroY: Int16
    /// Angular rate about z, raw counts.
    public var gyroZ: Int16
    /// The sample's device timestamp, in ticks.
    public var timestampTicks: UInt32

    /// Creates a sample.
    ///
    /// - Parameters:
    ///   - sensorID: 0 IMU, 1 gear.
    ///   - accelX: Acceleration x, raw counts.
    ///   - accelY: Acceleration y, raw counts.
    ///   - accelZ: Acceleration z, raw counts.
    ///   - gyroX: Angular rate x, raw counts.
    ///   - gyroY: Angular rate y, raw counts.
    ///   - gyroZ: Angular rate z, raw counts.
    ///   - timestampTicks: The device timestamp, in ticks.
    @inlinable
    public init(
        sensorID: UInt8,
        accelX: Int16,
        accelY: Int16,
        accelZ: Int16,
        gyroX: Int16,
        gyroY: Int16,
        gyroZ: Int16,
        timestampTicks: UInt32
    ) {
        self.sensorID = sensorID
        self.accelX = accelX
        self.accelY = accelY
        self.accelZ = accelZ
        self.gyroX = gyroX
        self.gyroY = gyroY
        self.gyroZ = gyroZ
        self.timestampTicks = timestampTicks
    }

    /// Reads the sample at `offset` in `bytes`, which holds at least `offset + 16` bytes.
    ///
    /// Fixed offsets rather than a `ByteCursor`: the caller checked the
    /// whole notification's length once, so per-field checks would be dead weight.
    @inlinable
    init(sensorID: UInt8, reading bytes: UnsafeRawBufferPointer, at offset: Int) {
        func int16(_ at: Int) -> Int16 {
            Int16(littleEndian: bytes.loadUnaligned(fromByteOffset: offset &+ at, as: Int16.self))
        }
        self.init(
            sensorID: sensorID,
            accelX: int16(0), accelY: int16(2), accelZ: int16(4),
            gyroX: int16(6), gyroY: int16(8), gyroZ: int16(10),
            timestampTicks: UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset &+ 12, as: UInt32.self))
        )
    }

    /// Appends the 16 wire bytes of this sample (the sensor id is not part of them).
    ///
    /// - Parameter bytes: The notification value being built.
    public func append(to bytes: inout [UInt8]) {
        for word in [accelX, accelY, accelZ, gyroX, gyroY, gyroZ] {
            let bits = UInt16(bitPattern: word)
            bytes.append(UInt8(truncatingIfNeeded: bits))
            bytes.append(UInt8(truncatingIfNeeded: bits >> 8))
        }
        for shift in stride(from: 0, to: 32, by: 8) {
            bytes.append(UInt8(truncatingIfNeeded: timestampTicks >> UInt32(shift)))
        }
    }

    enum CodingKeys: String, CodingKey {
        case sensorID = "sensor_id"
        case accelX = "accel_x"
        case accelY = "accel_y"
        case accelZ = "accel_z"
        case gyroX = "gyro_x"
        case gyroY = "gyro_y"
        case gyroZ = "gyro_z"
        case timestampTicks = "timestamp_ticks"
    }
}
