import ByteCursor
import Testing

@Suite struct ByteCursorTests {
    // MARK: Endianness and widths

    @Test func readsLittleEndianByDefaultAndBigEndianOnRequest() throws {
        var cursor = ByteCursor([0x34, 0x12, 0x78, 0x56, 0x34, 0x12, 0x12, 0x34] as [UInt8])
        #expect(try cursor.read(UInt16.self) == 0x1234)
        #expect(try cursor.read(UInt32.self) == 0x1234_5678)
        #expect(try cursor.read(UInt16.self, .big) == 0x1234)
        #expect(cursor.isAtEnd)
    }

    @Test func readsSignedIntegersAndAllWidths() throws {
        let bytes: [UInt8] = [0xFF, 0xFE, 0xFF, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08]
        var cursor = ByteCursor(bytes)
        #expect(try cursor.read(Int8.self) == -1)
        #expect(try cursor.read(Int16.self) == -2)
        #expect(try cursor.read(UInt64.self, .big) == 0x0102_0304_0506_0708)
        var again = ByteCursor(bytes, offset: 3)
        #expect(try again.read(UInt64.self) == 0x0807_0605_0403_0201)
    }

    @Test func readsFloatsInBothOrders() throws {
        var cursor = ByteCursor([0x00, 0x00, 0x80, 0x3F, 0xBF, 0xF0, 0, 0, 0, 0, 0, 0] as [UInt8])
        #expect(try cursor.readFloat32() == 1.0)
        #expect(try cursor.readFloat64(.big) == -1.0)
    }

    @Test func readsVariableWidthUnsignedIntegers() throws {
        var cursor = ByteCursor([0x8A, 0x02, 0x01, 0x02, 0x03] as [UInt8])
        #expect(try cursor.readUnsigned(byteCount: 2) == 650)
        #expect(try cursor.readUnsigned(byteCount: 3, .big) == 0x010203)
        #expect(throws: ByteCursorError.invalidCount(offset: 5, count: 0)) { try cursor.readUnsigned(byteCount: 0) }
        #expect(throws: ByteCursorError.invalidCount(offset: 5, count: 9)) { try cursor.readUnsigned(byteCount: 9) }
    }

    @Test func unalignedReadsFromSlicesCountFromTheSliceStart() throws {
        let whole: [UInt8] = [0xAA, 0xBB, 0x01, 0x00, 0x00, 0x00, 0xCC]
        var cursor = ByteCursor(whole[2..<6])
        #expect(cursor.remaining == 4)
        #expect(try cursor.read(UInt32.self) == 1)
        #expect(cursor.offset == 4)
    }

    @Test func readsBorrowedRawBuffers() throws {
        let bytes: [UInt8] = [0x05, 0x68, 0x65, 0x6C, 0x6C, 0x6F]
        let text = try bytes.withUnsafeBytes { raw throws(ByteCursorError) in
            var cursor = ByteCursor(raw)
            let count = try cursor.readByte()
            return try cursor.withBytes(count) { String(decoding: $0, as: UTF8.self) }
        }
        #expect(text == "hello")
    }

    // MARK: Bounds

    @Test func aShortReadThrowsAndLeavesTheCursorWhereItWas() throws {
        var cursor = ByteCursor([0x01, 0x02, 0x03] as [UInt8])
        _ = try cursor.readByte()
        #expect(throws: ByteCursorError.truncated(offset: 1, needed: 4, available: 2)) { try cursor.read(UInt32.self) }
        #expect(cursor.offset == 1)
        #expect(try cursor.read(UInt16.self) == 0x0302)
        #expect(throws: ByteCursorError.truncated(offset: 3, needed: 1, available: 0)) { try cursor.readByte() }
        #expect(throws: ByteCursorError.self) { try cursor.readFloat64() }
    }

    @Test func emptyBytesReadNothing() throws {
        var cursor = ByteCursor([] as [UInt8])
        #expect(cursor.isAtEnd)
        #expect(cursor.peekByte() == nil)
        #expect(cursor.peek(UInt16.self) == nil)
        #expect(throws: ByteCursorError.self) { try cursor.readByte() }
        #expect(cursor.readRemainingBytes() == [])
        #expect(try cursor.readBytes(0) == [])
    }

    @Test func peeksDoNotMove() {
        let cursor = ByteCursor([0x01, 0x02, 0x03] as [UInt8], offset: 1)
        #expect(cursor.peekByte() == 0x02)
        #expect(cursor.peekByte(at: 1) == 0x03)
        #expect(cursor.peekByte(at: 2) == nil)
        #expect(cursor.peekByte(at: -1) == nil)
        #expect(cursor.peek(UInt16.self, .big) == 0x0203)
        #expect(cursor.peek(UInt16.self, at: 1) == nil)
        #expect(cursor.offset == 1)
    }

    @Test func anOutOfRangeStartOffsetIsClamped() {
        #expect(ByteCursor([1, 2] as [UInt8], offset: -5).offset == 0)
        #expect(ByteCursor([1, 2] as [UInt8], offset: 99).isAtEnd)
    }

    // MARK: Hostile lengths

    @Test func hostileCountsThrowInsteadOfTrapping() throws {
        var cursor = ByteCursor([0x01, 0x02, 0x03, 0x04] as [UInt8])
        #expect(throws: ByteCursorError.invalidCount(offset: 0, count: -1)) { try cursor.readBytes(-1) }
        #expect(throws: ByteCursorError.invalidCount(offset: 0, count: Int64(Int.min))) { try cursor.skip(Int.min) }
        #expect(throws: ByteCursorError.truncated(offset: 0, needed: UInt64.max, available: 4)) {
            try cursor.readBytes(UInt64.max)
        }
        #expect(throws: ByteCursorError.truncated(offset: 0, needed: UInt64(UInt32.max), available: 4)) {
            try cursor.readRange(UInt32.max)
        }
        #expect(throws: ByteCursorError.truncated(offset: 0, needed: UInt64(Int.max), available: 4)) {
            try cursor.readCursor(Int.max)
        }
        _ = try cursor.readByte()
        // `offset + count` would overflow here; the count is checked against what is left instead.
        #expect(throws: ByteCursorError.truncated(offset: 1, needed: UInt64(Int.max), available: 3)) {
            try cursor.skip(Int.max)
        }
        #expect(cursor.offset == 1)
        #expect(try cursor.readBytes(UInt64(3)) == [0x02, 0x03, 0x04])
    }

    @Test func aLengthPrefixedFieldFromTheWireIsChecked() throws {
        // A u32 length claiming 4 GiB in a 6-byte buffer.
        var cursor = ByteCursor([0xFF, 0xFF, 0xFF, 0xFF, 0x41, 0x42] as [UInt8])
        let length = try cursor.read(UInt32.self)
        #expect(throws: ByteCursorError.truncated(offset: 4, needed: UInt64(UInt32.max), available: 2)) {
            try cursor.withBytes(length) { $0.count }
        }
    }

    // MARK: Runs and sub-cursors

    @Test func subCursorsEndAtTheirLength() throws {
        var cursor = ByteCursor([0x02, 0xAA, 0xBB, 0xCC] as [UInt8])
        let count = try cursor.readByte()
        var inner = try cursor.readCursor(count)
        #expect(inner.remaining == 2)
        #expect(try inner.read(UInt16.self, .big) == 0xAABB)
        #expect(inner.isAtEnd)
        #expect(throws: ByteCursorError.truncated(offset: 3, needed: 1, available: 0)) { try inner.readByte() }
        #expect(try cursor.readByte() == 0xCC)
    }

    @Test func rangesAndCopiesOfRuns() throws {
        var cursor = ByteCursor([0x10, 0x20, 0x30, 0x40, 0x50] as [UInt8])
        #expect(try cursor.readRange(2) == 0..<2)
        try cursor.skip(1)
        #expect(cursor.readRemainingBytes() == [0x40, 0x50])
        #expect(cursor.isAtEnd)
    }

    // MARK: Alignment

    @Test func alignsToTheFieldSizeFromTheOrigin() throws {
        // CDR: alignment counts from the end of the 4-byte encapsulation header.
        var cdr = ByteCursor(
            [0x00, 0x01, 0x00, 0x00, 0x07, 0xEE, 0xEE, 0xEE, 0x2A, 0, 0, 0] as [UInt8], alignmentOrigin: 4)
        try cdr.skip(4)
        #expect(try cdr.readByte() == 7)
        #expect(cdr.padding(to: 4) == 3)
        try cdr.align(to: 4)
        #expect(cdr.offset == 8)
        #expect(try cdr.read(UInt32.self) == 42)

        // D-Bus: alignment counts from the message start.
        var dbus = ByteCursor([0x01, 0, 0, 0, 0, 0, 0, 0, 0x02] as [UInt8])
        _ = try dbus.readByte()
        try dbus.align(to: 8)
        #expect(try dbus.readByte() == 2)

        var origin = ByteCursor([0, 0, 0, 0, 0, 0] as [UInt8], alignmentOrigin: 2)
        try origin.skip(3)
        #expect(origin.padding(to: 2) == 1)
        #expect(origin.padding(to: 1) == 0)
    }

    @Test func alignmentBeforeTheOriginMovesUpToTheOrigin() {
        let cursor = ByteCursor([0, 0, 0, 0, 0, 0] as [UInt8], offset: 1, alignmentOrigin: 4)
        #expect(cursor.padding(to: 8) == 3)
        #expect(cursor.padding(to: 2) == 1)
    }

    @Test func alignedCursorsStayPutAndPaddingPastTheEndThrows() throws {
        var cursor = ByteCursor([0, 0, 0, 0, 0x01, 0x02] as [UInt8], offset: 4)
        try cursor.align(to: 4)
        #expect(cursor.offset == 4)
        _ = try cursor.readByte()
        #expect(throws: ByteCursorError.truncated(offset: 5, needed: 3, available: 1)) { try cursor.align(to: 4) }
        #expect(cursor.offset == 5)
        #expect(throws: ByteCursorError.invalidCount(offset: 5, count: 0)) { try cursor.align(to: 0) }
        #expect(throws: ByteCursorError.invalidCount(offset: 5, count: -8)) { try cursor.align(to: -8) }
    }

    @Test func errorsDescribeThemselves() {
        #expect(
            ByteCursorError.truncated(offset: 3, needed: 4, available: 1).description
                == "4 bytes needed at offset 3, 1 left")
        #expect(ByteCursorError.invalidCount(offset: 0, count: -1).offset == 0)
    }
}
