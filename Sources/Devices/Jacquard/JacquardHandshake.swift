/// The requests live capture sends a Jacquard tag, as the Jacquard SDKs do
/// (protocol v2, read off their sources): after subscribing, Hello, Begin
/// (protocol 2), DeviceInfo of the tag (component 0) and a configuration
/// write of the notification queue depth; then, each time gear reports it is
/// attached, gesture mode for that component (inference on, continuous touch
/// off) and the queue depth gestures want.
///
/// Requests are `Request` envelopes (1 domain, 2 opcode, 3 id, 4 component)
/// with the command's extension, fragmented for the command characteristic.
///
/// ```swift
/// print(JacquardHandshake.hello(id: 1)[0])   // [0xC0, 0x06, 0x08, 0x00, 0x10, 0x01, 0x18, 0x01]
/// ```
public enum JacquardHandshake {
    // Domains and opcodes of the SDKs' protobuf enums.
    static let baseDomain: UInt64 = 0
    static let gearDomain: UInt64 = 8
    static let helloOpcode: UInt64 = 1
    static let beginOpcode: UInt64 = 2
    static let deviceInfoOpcode: UInt64 = 4
    static let gearDataOpcode: UInt64 = 7
    static let configWriteOpcode: UInt64 = 11

    /// The start-up requests (ids 1…4), each as its fragments.
    public static let writes: [[UInt8]] = [
        hello(id: 1), begin(id: 2), deviceInfo(id: 3), queueDepth(14, id: 4),
    ].flatMap { $0 }

    /// Hello: no extension; the tag answers with its protocol range, vendor and model.
    public static func hello(id: UInt32) -> [[UInt8]] {
        request(domain: baseDomain, opcode: helloOpcode, id: id)
    }

    /// Begin with protocol version 2 (extension 101, field 1).
    public static func begin(id: UInt32) -> [[UInt8]] {
        var begin = JacquardProtobufWriter()
        begin.writeVarintField(1, 2)
        return request(domain: baseDomain, opcode: beginOpcode, id: id, extensionNumber: 101, payload: begin)
    }

    /// DeviceInfo of the tag itself (component 0; extension 103, field 1).
    public static func deviceInfo(id: UInt32) -> [[UInt8]] {
        var info = JacquardProtobufWriter()
        info.writeVarintField(1, 0)
        return request(
            domain: baseDomain, opcode: deviceInfoOpcode, id: id, componentID: 0, extensionNumber: 103,
            payload: info)
    }

    /// A configuration write of the BLE notification queue depth
    /// (extension 1101 → 2 ble_config → 10 notif_queue_depth).
    public static func queueDepth(_ depth: UInt64, id: UInt32) -> [[UInt8]] {
        var ble = JacquardProtobufWriter()
        ble.writeVarintField(10, depth)
        var config = JacquardProtobufWriter()
        config.writeMessageField(2, ble)
        return request(domain: baseDomain, opcode: configWriteOpcode, id: id, extensionNumber: 1101, payload: config)
    }

    /// Gesture mode for attached gear: inference on (1), touch off (0)
    /// (extension 907 on GEAR / GEAR_DATA, addressed to the gear's component).
    public static func gestureMode(component: UInt32, id: UInt32) -> [[UInt8]] {
        var channel = JacquardProtobufWriter()
        channel.writeVarintField(1, 1)
        channel.writeVarintField(2, 0)
        return request(
            domain: gearDomain, opcode: gearDataOpcode, id: id, componentID: component,
            extensionNumber: 907, payload: channel)
    }

    /// A request envelope with an optional extension, fragmented.
    static func request(
        domain: UInt64, opcode: UInt64, id: UInt32, componentID: UInt32? = nil,
        extensionNumber: Int? = nil, payload: JacquardProtobufWriter? = nil
    ) -> [[UInt8]] {
        var message = JacquardProtobufWriter()
        message.writeVarintField(1, domain)
        message.writeVarintField(2, opcode)
        message.writeVarintField(3, UInt64(id))
        if let componentID { message.writeVarintField(4, UInt64(componentID)) }
        if let extensionNumber, let payload { message.writeMessageField(extensionNumber, payload) }
        return JacquardFragmenter.fragments(of: message.bytes)
    }
}
