public import DeviceRecording
public import Devices
import Quantities
public import ROS2
public import Recording

/// How Comodule frames are recorded: each property is a stream named by its
/// identifier (`/comodule/<device>/speed`), with schema
/// `tlm/msg/RangeValue` (numeric: the index keeps value statistics),
/// `tlm/msg/StateValue` or `tlm/msg/RawValue` by the property's type; write
/// acknowledgements go to `<identifier>/write_ack` and error frames to
/// `<identifier>/error`. The SDK's unit identifiers (`kilometer_per_hour`)
/// are recorded as UCUM codes (`km/h`, `Quantities.UnitCode`), in the
/// stream's metadata and in each RangeValue's `unit`.
extension ComoduleFrame: RecordableValue {
    /// `tlm/msg/RangeValue`: the value first, so it sits at a fixed payload offset.
    public static let rangeSchema = MessageSchema(
        name: "tlm/msg/RangeValue",
        text: """
            # A range property's value: raw integer × step + lower bound, in unit (a UCUM code).
            float64 value
            uint16 index
            string identifier
            string unit
            """)
    /// `tlm/msg/StateValue`.
    public static let stateSchema = MessageSchema(
        name: "tlm/msg/StateValue",
        text: """
            # A states property: the index into its state list and the state's identifier.
            uint32 state_index
            string state
            uint16 index
            string identifier
            """)
    /// `tlm/msg/RawValue`.
    public static let rawSchema = MessageSchema(
        name: "tlm/msg/RawValue",
        text: """
            # A raw property: up to 8 bytes.
            uint8[] data
            uint16 index
            string identifier
            """)
    /// `tlm/msg/ComoduleWriteAck`.
    public static let writeAckSchema = MessageSchema(
        name: "tlm/msg/ComoduleWriteAck",
        text: """
            # A write was acknowledged; value_json is the value written, as JSON.
            uint16 index
            string identifier
            string value_json
            """)
    /// `tlm/msg/ComoduleError`.
    public static let errorSchema = MessageSchema(
        name: "tlm/msg/ComoduleError",
        text: """
            uint64 error_code
            uint16 index
            string identifier
            """)

    public var streamKey: Int {
        let kindOffset =
            switch kind {
            case .value: 0
            case .writeAcknowledged: 1
            case .error: 2
            }
        // A property's value stream differs by type; a table never changes a
        // property's type within a session, so the index and kind suffice.
        return Int(index) * 3 + kindOffset
    }

    public var streamSpec: RecordedStream {
        switch kind {
        case .value:
            switch value {
            case .range?:
                RecordedStream(
                    name: identifier, schema: Self.rangeSchema, unit: unit.isEmpty ? nil : UnitCode.canonical(unit),
                    isNumeric: true,
                    isLatched: true)
            case .state?:
                RecordedStream(name: identifier, schema: Self.stateSchema, isLatched: true)
            case .raw?, nil:
                RecordedStream(name: identifier, schema: Self.rawSchema, isLatched: true)
            }
        case .writeAcknowledged:
            RecordedStream(name: identifier + "/write_ack", kind: .event, schema: Self.writeAckSchema)
        case .error:
            RecordedStream(name: identifier + "/error", kind: .event, schema: Self.errorSchema)
        }
    }

    public func encode(into cdr: inout CDRWriter) -> Double? {
        switch kind {
        case .value:
            switch value {
            case .range(let number)?:
                cdr.write(number)
                cdr.write(index)
                cdr.write(identifier)
                cdr.write(UnitCode.canonical(unit))
                return number
            case .state(let stateIndex, let state)?:
                cdr.write(UInt32(clamping: stateIndex))
                cdr.write(state)
                cdr.write(index)
                cdr.write(identifier)
            case .raw(let bytes)?:
                cdr.writeSequence(bytes)
                cdr.write(index)
                cdr.write(identifier)
            case nil:
                cdr.writeSequence([UInt8]())
                cdr.write(index)
                cdr.write(identifier)
            }
        case .writeAcknowledged:
            cdr.write(index)
            cdr.write(identifier)
            cdr.write(value?.jsonText ?? "")
        case .error:
            cdr.write(errorCode ?? 0)
            cdr.write(index)
            cdr.write(identifier)
        }
        return nil
    }
}

extension ComodulePropertyValue {
    /// The value as compact JSON, for write acknowledgements.
    var jsonText: String {
        switch self {
        case .range(let number): "{\"type\":\"range\",\"value\":\(number)}"
        case .state(let index, let identifier): "{\"index\":\(index),\"state\":\"\(identifier)\",\"type\":\"state\"}"
        case .raw(let bytes): "{\"type\":\"raw\",\"value\":[\(bytes.map(String.init).joined(separator: ","))]}"
        }
    }
}
