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
}
