package import ROS2

extension TextBuffer {
    /// Appends `value.text` (`CDRValue.text`): numbers and booleans as Swift
    /// prints them, strings as they are, `uint8[]` as hex, other arrays as `[a b c]`.
    package func append(text value: CDRValue) {
        switch value {
        case .bool(let flag): append(flag ? "true" : "false")
        case .int(let number): append(decimal: number)
        case .uint(let number): append(decimal: number)
        case .double(let number) where number.isNaN:
            // Interpolation shows a NaN's sign and payload (`-nan(0x1)`), as `text` always did.
            append("\(number)")
        case .double(let number): append(number)
        case .string(let text): append(text)
        case .bytes(let bytes): append(hex: bytes)
        case .array(let items): appendBracketed(items, separator: 0x20) { append(text: $0) }
        }
    }

    /// Appends `value.tidyJSON` (`CDRValue.tidyJSON`).
    package func append(tidyJSON value: CDRValue) {
        switch value {
        case .bool(let flag): append(flag ? "true" : "false")
        case .int(let number): append(decimal: number)
        case .uint(let number): append(decimal: number)
        case .double(let number):
            if number.isFinite { append(number) } else { append("null") }
        case .string(let string): append(jsonString: string)
        case .bytes(let bytes): appendBracketed(bytes, separator: 0x2C) { append(decimal: UInt64($0)) }
        case .array(let items): appendBracketed(items, separator: 0x2C) { append(tidyJSON: $0) }
        }
    }

    /// Appends `[`, each of `items` by `element` with `separator` between, `]`.
    private func appendBracketed<Items: Sequence>(
        _ items: Items, separator: UInt8, _ element: (Items.Element) -> Void
    ) {
        append(byte: 0x5B)
        for (position, item) in items.enumerated() {
            if position > 0 { append(byte: separator) }
            element(item)
        }
        append(byte: 0x5D)
    }

    /// Appends `value.tidyText` (`CDRValue.tidyText`).
    package func append(tidyText value: CDRValue) {
        switch value {
        case .string(let text): append(text)
        case .double(let number) where !number.isFinite: append(number.isNaN ? "NaN" : (number < 0 ? "-inf" : "inf"))
        default: append(tidyJSON: value)
        }
    }

    /// Appends the rest of a CSV row: for each column a comma, then the
    /// field its index names (as ``append(csv:text:)`` writes it; nothing
    /// where the schema has no such field), then the line break.
    package func append(
        csvColumns fields: [(name: String, value: CDRValue)], at indexes: [Int?], text: Bool
    ) {
        append(csvColumns: indexes, count: fields.count, text: text) { fields[$0].value }
    }

    /// Appends the rest of a CSV row, as for named fields, from the field
    /// values alone (in schema order).
    package func append(csvColumns values: [CDRValue], at indexes: [Int?], text: Bool) {
        append(csvColumns: indexes, count: values.count, text: text) { values[$0] }
    }

    @inline(__always)
    private func append(csvColumns indexes: [Int?], count: Int, text: Bool, value: (Int) -> CDRValue) {
        for index in indexes {
            append(byte: 0x2C)
            if let index, index < count { append(csv: value(index), text: text) }
        }
        append(byte: 0x0A)
    }

    /// Appends a value as a CSV field (as `CSVExporter.field` quotes its
    /// text): `text` true for `CDRValue.text`, false for `CDRValue.tidyText`.
    package func append(csv value: CDRValue, text: Bool) {
        switch value {
        case .bool, .int, .uint, .double:
            // Never a comma, a quote or a line break.
            if text { append(text: value) } else { append(tidyText: value) }
        case .string, .bytes, .array:
            let start = count
            if text { append(text: value) } else { append(tidyText: value) }
            quoteCSVField(from: start)
        }
    }

    /// Appends text as a CSV field, as `CSVExporter.field` does.
    package func append(csvField text: String) {
        let start = count
        append(text)
        quoteCSVField(from: start)
    }

    /// Quotes the bytes from `start` on as `CSVExporter.field` quotes a value.
    private func quoteCSVField(from start: Int) {
        var special = false
        var ascii = true
        for byte in UnsafeRawBufferPointer(rebasing: bytes[start...]) {
            switch byte {
            case 0x2C, 0x22, 0x0A, 0x0D: special = true
            case 0x80...: ascii = false
            default: break
            }
        }
        guard special || !ascii else { return }
        let field = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start...]), as: UTF8.self)
        truncate(to: start)
        if ascii {
            // Byte for byte what `CSVExporter.field` does to ASCII.
            append(byte: 0x22)
            for byte in field.utf8 {
                if byte == 0x22 { append(byte: 0x22) }
                append(byte: byte)
            }
            append(byte: 0x22)
        } else {
            // Characters beyond ASCII: the exporter's own rule, by characters.
            append(CSVExporter.field(field))
        }
    }

    /// Appends a JSON string literal, as `JSONString.append` writes it.
    package func append(jsonString string: String) {
        append(byte: 0x22)
        var string = string
        string.withUTF8 { utf8 in
            var clean = 0  // bytes from here on not yet appended need no escape
            for (index, byte) in utf8.enumerated() where byte < 0x20 || byte == 0x22 || byte == 0x5C {
                append(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(utf8)[clean..<index]))
                clean = index + 1
                switch byte {
                case 0x22: append("\\\"")
                case 0x5C: append("\\\\")
                case 0x0A: append("\\n")
                case 0x0D: append("\\r")
                case 0x09: append("\\t")
                default:
                    append("\\u00")
                    append(hexDigit: byte >> 4)
                    append(hexDigit: byte & 0x0F)
                }
            }
            append(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(utf8)[clean...]))
        }
        append(byte: 0x22)
    }

    /// Appends bytes as lower-case hex, two digits each.
    package func append(hex bytes: [UInt8]) {
        for byte in bytes {
            append(hexDigit: byte >> 4)
            append(hexDigit: byte & 0x0F)
        }
    }

    /// Appends a lower-case hex digit of 0...15.
    @inline(__always)
    private func append(hexDigit value: UInt8) {
        append(byte: value < 10 ? 0x30 &+ value : 0x57 &+ value)
    }
}
