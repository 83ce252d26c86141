import ROS2
import Testing

@testable import Recording

@Suite struct ROS2MessageDefinitionTests {
    @Test func parsesFieldsArraysAndSkipsCommentsAndConstants() throws {
        let definition = try ROS2MessageDefinition(
            parsing: """
                # a comment
                uint8 LIMIT=5
                uint8 channel   # trailing comment
                int16[] values
                uint8[3] raw
                string name
                float64 value
                """)
        #expect(definition.fields.map(\.name) == ["channel", "values", "raw", "name", "value"])
        #expect(definition.fields.map(\.arrayLength) == [nil, 0, 3, nil, nil])

        var cdr = CDRWriter()
        cdr.write(UInt8(7))
        cdr.writeIntegerSequence([Int16(-2), 300])
        cdr.writeArray([1, 2, 3] as [UInt8])
        cdr.write("ab")
        cdr.write(2.5)
        let fields = try definition.decode(cdr.bytes)
        #expect(
            fields.map(\.value) == [
                .uint(7), .array([.int(-2), .int(300)]), .bytes([1, 2, 3]), .string("ab"), .double(2.5),
            ])
    }

    @Test func nestedTypesAndShortPayloadsAreErrorsNotTraps() throws {
        #expect(throws: CDRError.self) { _ = try ROS2MessageDefinition(parsing: "geometry_msgs/Point p") }
        let definition = try ROS2MessageDefinition(parsing: "uint32 a\nstring b\nuint8[] c")
        var cdr = CDRWriter()
        cdr.write(UInt32(1))
        #expect(throws: CDRError.self) { _ = try definition.decode(cdr.bytes) }
        // A hostile sequence length.
        let hostile: [UInt8] = [0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0x7F]
        #expect(throws: CDRError.self) { _ = try definition.decode(hostile) }
        #expect(throws: CDRError.self) { _ = try definition.decode([1, 2]) }
    }

    /// The sample time: `builtin_interfaces/Time` (and its long form) read as
    /// one count of nanoseconds; a stamped schema keeps its comments first,
    /// appends the dependency as MCAP does, and puts a numeric value where
    /// CDR puts it (the stamp aligned to 4, 8 bytes).
    @Test func theStampIsATimeInNanosecondsFirstInAStampedSchema() throws {
        let schema = MessageSchema(name: "t/msg/S", text: "# A sample.\nuint8 channel\nfloat64 value").stamped
        #expect(schema.isStamped && schema.stamped == schema)
        #expect(schema.text.hasPrefix("# A sample.\nbuiltin_interfaces/Time stamp"))
        #expect(schema.text.hasSuffix("MSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec"))
        let definition = try ROS2MessageDefinition(parsing: schema.text)
        #expect(definition.fields.map(\.name) == ["stamp", "channel", "value"])
        #expect(definition.fields.first?.type == .time)
        // body: stamp at 0 (8 bytes), channel at 8, value aligned to 16: payload offset 20.
        #expect(NumericSchemas.valueOffset(definition) == 20)
        var cdr = CDRWriter()
        cdr.writeTime(nanoseconds: 1_700_000_000_123_456_789)
        cdr.write(UInt8(3))
        cdr.write(2.5)
        #expect(cdr.bytes.count == 28)
        let fields = try definition.decode(cdr.bytes)
        #expect(fields.map(\.value) == [.int(1_700_000_000_123_456_789), .uint(3), .double(2.5)])
        #expect(NumericSchemas.value(at: 20, payload: cdr.bytes) == 2.5)
        let long = try ROS2MessageDefinition(parsing: "builtin_interfaces/msg/Time stamp")
        #expect(long.fields.first?.type == .time)
        // A time cut short is an error, not a trap.
        #expect(throws: CDRError.self) { _ = try long.decode(Array(cdr.bytes.prefix(10))) }
        // Not stamped: raw and flat schemas, a `stamp` of another type.
        #expect(!MessageSchema(name: "x", text: "int64 stamp\nuint8 a").isStamped)
        #expect(MessageSchema(name: "x", encoding: "jsonschema", text: "{}").stamped.text == "{}")
    }
}
