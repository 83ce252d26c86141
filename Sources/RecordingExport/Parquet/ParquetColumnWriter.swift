/// One column of a Parquet file being written: the current row group's
/// values, PLAIN-encoded as they come, with the levels of a list column and
/// running min/max statistics. ``ParquetFileWriter`` turns it into a column
/// chunk (one zstd-compressed data page, v1) at each row group's end.
///
/// A flat column is REQUIRED (every row has a value). A list column is the
/// standard 3-level list, `required group <name> (LIST) { repeated group
/// list { required <type> element; } }`: maximum repetition and definition
/// level 1; an empty list is one entry with both levels 0 and no value.
///
/// A dictionary column (``isDictionary``, a flat string column of few
/// distinct values: a lake's topic, device and recording) keeps each
/// distinct value once and the rows as runs of value indices: its chunk is
/// a dictionary page (the distinct values, PLAIN) and a data page of the
/// indices, RLE_DICTIONARY (a bit width byte, then RLE runs).
///
/// Not `Sendable`: it belongs to its file writer.
final class ParquetColumnWriter {
    /// The column's (top-level) name.
    let name: String
    /// The values' type.
    let type: ParquetColumnType
    /// Whether it is a list column.
    let isList: Bool
    /// Whether its values are dictionary-encoded (a flat string or binary column).
    let isDictionary: Bool

    /// PLAIN-encoded values (booleans one byte each, bit-packed when the page is made).
    let values = ParquetValueBuffer()
    private var repetitionLevels: [UInt8] = []
    private var definitionLevels: [UInt8] = []
    /// Values (list elements for a list column) in the row group.
    private(set) var valueCount = 0
    private let unsigned: Bool

    // Statistics of the row group's values.
    private var minimumSigned = Int64.max, maximumSigned = Int64.min
    private var minimumUnsigned = UInt64.max, maximumUnsigned = UInt64.min
    private var minimumDouble = Double.infinity, maximumDouble = -Double.infinity
    private var hasNumber = false
    private var minimumBytes: [UInt8]?, maximumBytes: [UInt8]?
    /// Whether a byte-array value was too long to keep as a statistic.
    private var bytesStatisticsDropped = false
    /// Longest byte-array value kept as a min/max statistic.
    static let maximumStatisticsLength = 256

    // A dictionary column's distinct values (in order of appearance) and its rows as runs of their indices.
    private var dictionary: [[UInt8]] = []
    private var dictionaryIndex: [[UInt8]: UInt32] = [:]
    private var dictionaryBytes = 0
    private var runValues: [UInt32] = []
    private var runLengths: [Int] = []
    /// ``appendConstant(_:count:)``'s values by their storage's address, and their dictionary indices.
    private var constantAddresses: [UnsafeRawPointer] = []
    private var constantIndices: [UInt32] = []

    /// Creates an empty column.
    ///
    /// - Parameter dictionary: Dictionary-encode the values (only a flat string or binary column).
    init(name: String, type: ParquetColumnType, isList: Bool = false, dictionary: Bool = false) {
        self.name = name
        self.type = type
        self.isList = isList
        self.isDictionary = dictionary && !isList && (type == .string || type == .binary)
        self.unsigned = type.isUnsigned
    }

    /// An empty column like this one.
    func emptyCopy() -> ParquetColumnWriter {
        ParquetColumnWriter(name: name, type: type, isList: isList, dictionary: isDictionary)
    }

    /// The column's path in the schema (its leaf).
    var path: [String] { isList ? [name, "list", "element"] : [name] }

    /// Level entries of the row group (the page's value count): values, plus one per empty list.
    var entryCount: Int { isList ? repetitionLevels.count : valueCount }

    /// Bytes buffered for the row group.
    var bufferedBytes: Int {
        values.count + repetitionLevels.count + definitionLevels.count + dictionaryBytes + runLengths.count * 12
    }

    // MARK: Values

    /// Appends an INT32 value (its bit pattern; unsigned types compare as unsigned).
    @inline(__always)
    func appendInt32(_ bits: UInt32) {
        values.append(bits)
        valueCount += 1
        if unsigned {
            let value = UInt64(bits)
            if value < minimumUnsigned { minimumUnsigned = value }
            if value > maximumUnsigned { maximumUnsigned = value }
        } else {
            let value = Int64(Int32(bitPattern: bits))
            if value < minimumSigned { minimumSigned = value }
            if value > maximumSigned { maximumSigned = value }
        }
    }

    /// Appends an INT64 value (its bit pattern; unsigned types compare as unsigned).
    @inline(__always)
    func appendInt64(_ bits: UInt64) {
        values.append(bits)
        valueCount += 1
        if unsigned {
            if bits < minimumUnsigned { minimumUnsigned = bits }
            if bits > maximumUnsigned { maximumUnsigned = bits }
        } else {
            let value = Int64(bitPattern: bits)
            if value < minimumSigned { minimumSigned = value }
            if value > maximumSigned { maximumSigned = value }
        }
    }

    /// Appends a FLOAT value by its bit pattern.
    @inline(__always)
    func appendFloat(_ bits: UInt32) {
        values.append(bits)
        valueCount += 1
        noteDouble(Double(Float(bitPattern: bits)))
    }

    /// Appends a DOUBLE value by its bit pattern.
    @inline(__always)
    func appendDouble(_ bits: UInt64) {
        values.append(bits)
        valueCount += 1
        noteDouble(Double(bitPattern: bits))
    }

    @inline(__always)
    private func noteDouble(_ value: Double) {
        guard !value.isNaN else { return }  // NaN takes no part in min/max
        hasNumber = true
        if value < minimumDouble { minimumDouble = value }
        if value > maximumDouble { maximumDouble = value }
    }

    // MARK: Bulk values

    /// Appends `count` INT32 values, `value(0)` first: what as many
    /// ``appendInt32(_:)`` calls do, in one pass with the statistics kept in
    /// registers.
    @inline(__always)
    func appendInt32s(count: Int, _ value: (Int) -> UInt32) {
        let out = values.appendUninitialized(byteCount: count * 4)
        valueCount += count
        if unsigned {
            var low = minimumUnsigned
            var high = maximumUnsigned
            for index in 0..<count {
                let bits = value(index)
                out.storeBytes(of: bits.littleEndian, toByteOffset: index * 4, as: UInt32.self)
                low = min(low, UInt64(bits))
                high = max(high, UInt64(bits))
            }
            minimumUnsigned = low
            maximumUnsigned = high
        } else {
            var low = minimumSigned
            var high = maximumSigned
            for index in 0..<count {
                let bits = value(index)
                out.storeBytes(of: bits.littleEndian, toByteOffset: index * 4, as: UInt32.self)
                let signed = Int64(Int32(bitPattern: bits))
                low = min(low, signed)
                high = max(high, signed)
            }
            minimumSigned = low
            maximumSigned = high
        }
    }

    /// Appends `count` INT64 values, `value(0)` first, as ``appendInt32s(count:_:)`` does INT32 ones.
    @inline(__always)
    func appendInt64s(count: Int, _ value: (Int) -> UInt64) {
        let out = values.appendUninitialized(byteCount: count * 8)
        valueCount += count
        if unsigned {
            var low = minimumUnsigned
            var high = maximumUnsigned
            for index in 0..<count {
                let bits = value(index)
                out.storeBytes(of: bits.littleEndian, toByteOffset: index * 8, as: UInt64.self)
                low = min(low, bits)
                high = max(high, bits)
            }
            minimumUnsigned = low
            maximumUnsigned = high
        } else {
            var low = minimumSigned
            var high = maximumSigned
            for index in 0..<count {
                let bits = value(index)
                out.storeBytes(of: bits.littleEndian, toByteOffset: index * 8, as: UInt64.self)
                let signed = Int64(bitPattern: bits)
                low = min(low, signed)
                high = max(high, signed)
            }
            minimumSigned = low
            maximumSigned = high
        }
    }

    /// Appends `count` FLOAT values by their bit patterns, `value(0)` first
    /// (what as many ``appendFloat(_:)`` calls do).
    @inline(__always)
    func appendFloats(count: Int, _ value: (Int) -> UInt32) {
        let out = values.appendUninitialized(byteCount: count * 4)
        valueCount += count
        var low = minimumDouble
        var high = maximumDouble
        var any = hasNumber
        for index in 0..<count {
            let bits = value(index)
            out.storeBytes(of: bits.littleEndian, toByteOffset: index * 4, as: UInt32.self)
            let number = Double(Float(bitPattern: bits))
            guard !number.isNaN else { continue }  // NaN takes no part in min/max
            any = true
            if number < low { low = number }
            if number > high { high = number }
        }
        minimumDouble = low
        maximumDouble = high
        hasNumber = any
    }

    /// Appends `count` DOUBLE values by their bit patterns, `value(0)` first
    /// (what as many ``appendDouble(_:)`` calls do).
    @inline(__always)
    func appendDoubles(count: Int, _ value: (Int) -> UInt64) {
        let out = values.appendUninitialized(byteCount: count * 8)
        valueCount += count
        var low = minimumDouble
        var high = maximumDouble
        var any = hasNumber
        for index in 0..<count {
            let bits = value(index)
            out.storeBytes(of: bits.littleEndian, toByteOffset: index * 8, as: UInt64.self)
            let number = Double(bitPattern: bits)
            guard !number.isNaN else { continue }  // NaN takes no part in min/max
            any = true
            if number < low { low = number }
            if number > high { high = number }
        }
        minimumDouble = low
        maximumDouble = high
        hasNumber = any
    }

    /// Appends `count` BOOLEAN values, `value(0)` first (what as many ``appendBool(_:)`` calls do).
    @inline(__always)
    func appendBools(count: Int, _ value: (Int) -> Bool) {
        let out = values.appendUninitialized(byteCount: count)
        valueCount += count
        var low = minimumUnsigned
        var high = maximumUnsigned
        for index in 0..<count {
            let bit: UInt8 = value(index) ? 1 : 0
            out.storeBytes(of: bit, toByteOffset: index, as: UInt8.self)
            low = min(low, UInt64(bit))
            high = max(high, UInt64(bit))
        }
        minimumUnsigned = low
        maximumUnsigned = high
    }

    /// Appends a BOOLEAN value.
    func appendBool(_ value: Bool) {
        values.append(UInt8(value ? 1 : 0))
        valueCount += 1
        let number: UInt64 = value ? 1 : 0
        if number < minimumUnsigned { minimumUnsigned = number }
        if number > maximumUnsigned { maximumUnsigned = number }
    }

    /// Appends `count` equal BYTE_ARRAY values (what as many ``appendBytes(_:)`` calls do).
    func appendRepeated(_ bytes: UnsafeRawBufferPointer, count: Int) {
        guard count > 0 else { return }
        guard isDictionary else {
            for _ in 0..<count { appendBytes(bytes) }
            return
        }
        valueCount += count
        // Runs of one value are the common case: compare with the last run's value first.
        if let last = runValues.last, dictionary[Int(last)].withUnsafeBytes({ $0.elementsEqual(bytes) }) {
            runLengths[runLengths.count - 1] += count
            return
        }
        let key = Array(bytes)
        let index: UInt32
        if let known = dictionaryIndex[key] {
            index = known
        } else {
            index = UInt32(dictionary.count)
            dictionary.append(key)
            dictionaryIndex[key] = index
            dictionaryBytes += 4 + key.count
            noteBytes(bytes)
        }
        if runValues.last == index {
            runLengths[runLengths.count - 1] += count
        } else {
            runValues.append(index)
            runLengths.append(count)
        }
    }

    /// Appends `count` rows of a constant: what ``appendRepeated(_:count:)``
    /// does, found by the address of its bytes instead of their hash when it
    /// came before. `bytes` must stay where they are, unchanged, while the
    /// column lives (a ``ParquetTopicLayout``'s constants do).
    @inline(__always)
    func appendConstant(_ bytes: UnsafeRawBufferPointer, count: Int) {
        guard isDictionary, count > 0, let address = bytes.baseAddress else {
            appendRepeated(bytes, count: count)
            return
        }
        if let known = constantAddresses.firstIndex(of: address) {
            let index = constantIndices[known]
            valueCount += count
            if runValues.last == index {
                runLengths[runLengths.count - 1] += count
            } else {
                runValues.append(index)
                runLengths.append(count)
            }
            return
        }
        appendRepeated(bytes, count: count)
        if constantAddresses.count < 64, let index = runValues.last {
            constantAddresses.append(address)
            constantIndices.append(index)
        }
    }

    /// Appends a BYTE_ARRAY value (a string's UTF-8 bytes).
    func appendBytes(_ bytes: UnsafeRawBufferPointer) {
        if isDictionary {
            appendRepeated(bytes, count: 1)
            return
        }
        values.append(UInt32(bytes.count))
        values.append(bytes)
        valueCount += 1
        noteBytes(bytes)
    }

    /// Takes a BYTE_ARRAY value into the min/max statistics.
    private func noteBytes(_ bytes: UnsafeRawBufferPointer) {
        guard !bytesStatisticsDropped else { return }
        guard bytes.count <= Self.maximumStatisticsLength else {
            bytesStatisticsDropped = true
            minimumBytes = nil
            maximumBytes = nil
            return
        }
        if minimumBytes.map({ Self.lexicographicallyPrecedes(bytes, $0) }) ?? true { minimumBytes = Array(bytes) }
        if maximumBytes.map({ Self.lexicographicallyPrecedes($0, bytes) }) ?? true { maximumBytes = Array(bytes) }
    }

    /// Unsigned byte-wise order, as Parquet orders BYTE_ARRAY values.
    private static func lexicographicallyPrecedes(_ a: UnsafeRawBufferPointer, _ b: [UInt8]) -> Bool {
        b.withUnsafeBytes { b in a.lexicographicallyPrecedes(b) }
    }

    private static func lexicographicallyPrecedes(_ a: [UInt8], _ b: UnsafeRawBufferPointer) -> Bool {
        a.withUnsafeBytes { a in a.lexicographicallyPrecedes(b) }
    }

    // MARK: Lists

    /// Records an empty list (a list column's row without elements).
    func appendEmptyList() {
        repetitionLevels.append(0)
        definitionLevels.append(0)
    }

    /// Records the levels of a list element; append its value next.
    ///
    /// - Parameter first: Whether it is the row's first element.
    func appendListElementLevels(first: Bool) {
        repetitionLevels.append(first ? 0 : 1)
        definitionLevels.append(1)
    }

    // MARK: Pages

    /// The row group's data page, uncompressed: for a list column the
    /// repetition then definition levels (each a 4-byte length and the RLE /
    /// bit-packed hybrid runs), then the values.
    ///
    /// An INT32 or INT64 column's values are DELTA_BINARY_PACKED instead of
    /// PLAIN when that takes at most half the bytes (timestamps, counters,
    /// constants); a FLOAT or DOUBLE column's are BYTE_STREAM_SPLIT (each
    /// byte position of the values a stream of its own, so the exponents'
    /// bytes and the zero low bytes of a widened `Float` lie together: zstd
    /// compresses that several times faster, and smaller, than PLAIN):
    /// `encoding` says which (0 PLAIN, 5 DELTA_BINARY_PACKED, 9 BYTE_STREAM_SPLIT).
    func pageBody() -> (bytes: [UInt8]?, encoding: Int32) {
        if isDictionary { return (dictionaryIndexPage(), 8) }
        if !isList, type == .float || type == .double {
            return (values.withBytes { Self.byteStreamSplit($0, width: type == .double ? 8 : 4) }, 9)
        }
        if !isList, let width = deltaWidth, valueCount > 0 {
            // A column of one value (its minimum is its maximum) has every delta 0.
            let constant = unsigned ? minimumUnsigned == maximumUnsigned : minimumSigned == maximumSigned
            let limit = values.count / 2
            let delta = values.withBytes { values in
                constant
                    ? ParquetDeltaEncoder.encodeConstant(of: values, width: width)
                    : ParquetDeltaEncoder.encodeEvenStep(of: values, width: width)
                        ?? ParquetDeltaEncoder.encode(values, width: width, limit: limit)
            }
            if let delta, delta.count <= limit { return (delta, 5) }
        }
        return (plainPageBody(), 0)
    }

    /// A dictionary column's dictionary page body: its distinct values, PLAIN (`nil`: not a dictionary column).
    func dictionaryPage() -> (bytes: [UInt8], count: Int)? {
        guard isDictionary else { return nil }
        var page: [UInt8] = []
        page.reserveCapacity(dictionaryBytes)
        for value in dictionary {
            withUnsafeBytes(of: UInt32(value.count).littleEndian) { page.append(contentsOf: $0) }
            page.append(contentsOf: value)
        }
        return (page, dictionary.count)
    }

    /// A dictionary column's data page body (RLE_DICTIONARY): the indices'
    /// bit width (one byte), then each run of equal indices as one RLE run
    /// of the hybrid encoding (header `length << 1`, the index in
    /// `ceil(width / 8)` bytes).
    private func dictionaryIndexPage() -> [UInt8] {
        var width = 1
        while (1 << width) < dictionary.count { width += 1 }
        let valueBytes = (width + 7) / 8
        var page: [UInt8] = [UInt8(width)]
        page.reserveCapacity(1 + runLengths.count * (5 + valueBytes))
        for (value, length) in zip(runValues, runLengths) {
            var remaining = length
            while remaining > 0 {
                // A run's length is a 32-bit varint header (length << 1): split longer ones.
                let part = min(remaining, Int(Int32.max >> 1))
                var header = UInt32(part) << 1
                while header >= 0x80 {
                    page.append(UInt8(header & 0x7F) | 0x80)
                    header >>= 7
                }
                page.append(UInt8(header))
                for byte in 0..<valueBytes { page.append(UInt8(truncatingIfNeeded: value >> (8 * byte))) }
                remaining -= part
            }
        }
        return page
    }

    /// BYTE_STREAM_SPLIT of PLAIN values of `width` bytes: byte `k` of value
    /// `i` goes to position `k * count + i`.
    static func byteStreamSplit(_ plain: UnsafeRawBufferPointer, width: Int) -> [UInt8] {
        let count = plain.count / width
        return [UInt8](unsafeUninitializedCapacity: count * width) { out, initialized in
            guard let source = plain.baseAddress, let target = out.baseAddress else { return }
            if width == 8 {
                for index in 0..<count {
                    let bits = UInt64(littleEndian: source.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self))
                    for byte in 0..<8 {
                        target[byte &* count &+ index] = UInt8(truncatingIfNeeded: bits &>> UInt64(byte &* 8))
                    }
                }
            } else {
                for index in 0..<count {
                    let bits = UInt32(littleEndian: source.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self))
                    for byte in 0..<4 {
                        target[byte &* count &+ index] = UInt8(truncatingIfNeeded: bits &>> UInt32(byte &* 8))
                    }
                }
            }
            initialized = count * width
        }
    }

    /// The byte width DELTA_BINARY_PACKED would encode this column's values at (`nil`: not an integer column).
    private var deltaWidth: Int? {
        switch type {
        case .int32: 4
        case .int64, .timestampMicroseconds: 8
        default: nil
        }
    }

    /// The PLAIN page body (`nil`: the values buffer as it is).
    private func plainPageBody() -> [UInt8]? {
        guard isList || type == .boolean else { return nil }  // the values buffer is the page as it is
        var page: [UInt8] = []
        if isList {
            for levels in [repetitionLevels, definitionLevels] {
                let encoded = ParquetRLEHybridEncoder.encode(levels, bitWidth: 1)
                withUnsafeBytes(of: UInt32(encoded.count).littleEndian) { page.append(contentsOf: $0) }
                page.append(contentsOf: encoded)
            }
        }
        if type == .boolean {
            var byte: UInt8 = 0
            for index in 0..<values.count {
                byte |= values[index] << UInt8(index % 8)
                if index % 8 == 7 {
                    page.append(byte)
                    byte = 0
                }
            }
            if values.count % 8 != 0 { page.append(byte) }
        } else {
            values.withBytes { page.append(contentsOf: $0) }
        }
        return page
    }

    /// The row group's statistics: PLAIN-encoded min and max (`nil` when
    /// there is none to give: no values, only NaNs, a long byte array), and
    /// the null count (`nil` for a list column).
    func statistics() -> (minimum: [UInt8]?, maximum: [UInt8]?, nullCount: Int64?) {
        let nullCount: Int64? = isList ? nil : 0
        guard valueCount > 0 else { return (nil, nil, nullCount) }
        func plain<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
            withUnsafeBytes(of: value.littleEndian) { Array($0) }
        }
        switch type {
        case .boolean:
            return ([UInt8(minimumUnsigned)], [UInt8(maximumUnsigned)], nullCount)
        case .int32:
            return unsigned
                ? (plain(UInt32(minimumUnsigned)), plain(UInt32(maximumUnsigned)), nullCount)
                : (plain(Int32(minimumSigned)), plain(Int32(maximumSigned)), nullCount)
        case .int64, .timestampMicroseconds:
            return unsigned
                ? (plain(minimumUnsigned), plain(maximumUnsigned), nullCount)
                : (plain(minimumSigned), plain(maximumSigned), nullCount)
        case .float, .double:
            guard hasNumber else { return (nil, nil, nullCount) }
            // A zero minimum is written as -0.0 and a zero maximum as +0.0, as the format asks.
            let low = minimumDouble == 0 ? -0.0 : minimumDouble
            let high = maximumDouble == 0 ? 0.0 : maximumDouble
            return type == .float
                ? (plain(Float(low).bitPattern), plain(Float(high).bitPattern), nullCount)
                : (plain(low.bitPattern), plain(high.bitPattern), nullCount)
        case .string, .binary:
            return (minimumBytes, maximumBytes, nullCount)
        }
    }

    /// Empties the column for the next row group, releasing its buffers.
    func reset() {
        values.removeAll(expecting: values.count)
        repetitionLevels = []
        definitionLevels = []
        valueCount = 0
        minimumSigned = .max
        maximumSigned = .min
        minimumUnsigned = .max
        maximumUnsigned = .min
        minimumDouble = .infinity
        maximumDouble = -.infinity
        hasNumber = false
        minimumBytes = nil
        maximumBytes = nil
        bytesStatisticsDropped = false
        dictionary = []
        dictionaryIndex = [:]
        dictionaryBytes = 0
        runValues = []
        runLengths = []
        constantAddresses = []
        constantIndices = []
    }
}
