/// Encodes Comodule frames in recorder profile v1 (used by the simulator and
/// by tests); the inverse of ``ComoduleDecoder``.
///
/// ```swift
/// let speed = ComodulePropertyTable.default[1]!
/// print(ComoduleEncoder.encode(rawInteger: 123, of: speed)) // [1, 1, 0, 2, 123, 0]
/// ```
public enum ComoduleEncoder {
    /// A frame from its parts, as given (no checks, so tests can build
    /// malformed frames): type, index, length byte, value.
    ///
    /// - Parameters:
    ///   - kind: The frame type.
    ///   - index: The property index.
    ///   - signed: Sets bit 4 of the length byte.
    ///   - value: The value bytes; the length nibble is `value.count & 0x0F`.
    /// - Returns: `4 + value.count` bytes.
    public static func frame(kind: ComoduleFrame.Kind, index: UInt16, signed: Bool, value: [UInt8]) -> [UInt8] {
        [
            kind.code, UInt8(truncatingIfNeeded: index), UInt8(truncatingIfNeeded: index >> 8),
            UInt8(truncatingIfNeeded: value.count) & 0x0F | (signed ? 0x10 : 0),
        ] + value
    }

    /// The low `width` bytes of an integer, little-endian.
    ///
    /// - Parameters:
    ///   - value: The integer (two's complement when negative).
    ///   - width: 1…8 (clamped).
    /// - Returns: `width` bytes.
    public static func littleEndian(_ value: Int64, width: Int) -> [UInt8] {
        let raw = UInt64(bitPattern: value)
        return (0..<min(max(width, 1), 8)).map { UInt8(truncatingIfNeeded: raw >> UInt64(8 * $0)) }
    }

    /// A frame carrying a raw integer in the property's width and signedness.
    ///
    /// - Parameters:
    ///   - raw: The raw integer (range: `(value − lowerBound) / step`; states: the index;
    ///     error frames: the error code).
    ///   - property: The property, for its index, width and signedness.
    ///   - kind: The frame type; `.value` when omitted.
    /// - Returns: The frame's bytes.
    public static func encode(
        rawInteger raw: Int64, of property: ComoduleProperty, kind: ComoduleFrame.Kind = .value
    )
        -> [UInt8]
    {
        frame(
            kind: kind,
            index: property.index,
            signed: property.isSigned,
            value: littleEndian(raw, width: property.rawWidth)
        )
    }

    /// The raw integer that encodes a value, or `nil` when the value does not
    /// fit the property (wrong case, outside the read range, unknown state,
    /// raw bytes not 1…8).
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - property: The property.
    /// - Returns: `round((value − lowerBound) / step)` for a range, the state index for states.
    public static func rawInteger(for value: ComodulePropertyValue, of property: ComoduleProperty) -> Int64? {
        switch (property.type, value) {
        case (.range(let step, let lowerBound, let upperBound), .range(let number)):
            guard ComoduleProperty.inRange(number, step: step, lowerBound: lowerBound, upperBound: upperBound) else {
                return nil
            }
            let steps = (number - lowerBound) / step
            guard steps.isFinite, steps.magnitude < 0x1p62 else { return nil }
            return Int64(DiotSimulator.roundDown(steps + 0.5))
        case (.states(let states), .state(let index, let identifier)):
            guard states.indices.contains(index), states[index] == identifier else { return nil }
            return Int64(index)
        default:
            return nil
        }
    }

    /// The bytes of a frame, or `nil` when its property is not in the table or
    /// its value does not fit the property.
    ///
    /// ```swift
    /// let enabled = ComodulePropertyValue.state(index: 2, identifier: "enabled")
    /// let frame = ComoduleFrame(kind: .value, index: 4, identifier: "lights", unit: "", value: enabled)
    /// print(ComoduleEncoder.encode(frame, table: .default)!) // [1, 4, 0, 1, 2]
    /// ```
    ///
    /// - Parameters:
    ///   - frame: The frame (error frames need ``ComoduleFrame/errorCode``, sent in 1…8 bytes).
    ///   - table: The table the property comes from.
    /// - Returns: The frame's bytes.
    public static func encode(_ frame: ComoduleFrame, table: ComodulePropertyTable) -> [UInt8]? {
        guard let property = table[frame.index] else { return nil }
        if frame.kind == .error {
            guard let code = frame.errorCode else { return nil }
            var width = 1
            while width < 8, code >> UInt64(8 * width) != 0 { width += 1 }
            return self.frame(
                kind: .error,
                index: frame.index,
                signed: false,
                value: littleEndian(Int64(bitPattern: code), width: width)
            )
        }
        guard let value = frame.value else { return nil }
        if case .raw(let bytes) = value {
            guard case .raw = property.type, (1...8).contains(bytes.count) else { return nil }
            return self.frame(kind: frame.kind, index: frame.index, signed: property.isSigned, value: bytes)
        }
        guard let raw = rawInteger(for: value, of: property) else { return nil }
        let bits = Int64(8 * property.rawWidth - (property.isSigned ? 1 : 0))
        guard bits >= 63 || (raw < 1 << bits && raw >= (property.isSigned ? -(1 << bits) : 0)) else { return nil }
        return encode(rawInteger: raw, of: property, kind: frame.kind)
    }
}
