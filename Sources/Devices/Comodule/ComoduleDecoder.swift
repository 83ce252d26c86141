import ByteCursor

/// Decodes Comodule recorder-profile-v1 property-stream notifications into
/// ``ComoduleFrame``s, using a ``ComodulePropertyTable``.
///
/// Frame layout (one property update per notification, on ``ComoduleGATT/propertyStream``):
///
/// | Offset | Size | Field |
/// |---|---|---|
/// | 0 | 1 | frame type: 1 value, 2 write acknowledged, 3 error (value = error code) |
/// | 1 | 2 | property index, u16 little-endian |
/// | 3 | 1 | bits 0–3 value length N (1…8), bit 4 signed, bits 5–7 zero |
/// | 4 | N | value, little-endian |
///
/// Values by type: range → `Double(rawInt) × step + lowerBound`, which must lie
/// in the read range; states → the raw integer indexes the state list; raw →
/// the N bytes. The raw integer is read with the frame's signed bit. An error
/// frame's code is the N bytes read unsigned. Every other case throws
/// ``ComoduleDecodeError``: another
/// characteristic, fewer than 4 bytes, frame type not 1…3, reserved bits set,
/// N = 0 or > 8, fewer or more bytes than `4 + N`, an index not in the table,
/// a value outside its read range or state list. Decoding never traps; it
/// allocates only a raw value's bytes (at most 8) and the frame's strings.
///
/// ```swift
/// let decoder = ComoduleDecoder()
/// // battery_temperature, signed 2-byte raw 650: 650 × 0.1 − 40 = 25 °C
/// let frame = try decoder.decode([0x01, 0x07, 0x00, 0x12, 0x8A, 0x02], from: ComoduleGATT.propertyStream)
/// print(frame.value!) // 25.0
/// ```
public struct ComoduleDecoder: StatelessPacketDecoder, Hashable {
    /// Decoded values are ``ComoduleFrame``s.
    public typealias Value = ComoduleFrame
    /// Malformed packets throw ``ComoduleDecodeError``.
    public typealias Failure = ComoduleDecodeError

    /// ``DeviceFamily/comodule``.
    public static let family = DeviceFamily.comodule

    /// The table that gives each property index its meaning.
    public var table: ComodulePropertyTable

    /// Creates a decoder.
    ///
    /// - Parameter table: The device's property table; the spec's default when omitted.
    public init(table: ComodulePropertyTable = .default) {
        self.table = table
    }

    /// Decodes a value notified by a characteristic.
    ///
    /// - Parameters:
    ///   - bytes: The notification's value.
    ///   - characteristic: The characteristic that notified.
    /// - Returns: The decoded frame.
    /// - Throws: ``ComoduleDecodeError`` for another characteristic or a malformed frame.
    public func decode(
        _ bytes: [UInt8],
        from characteristic: CharacteristicUUID
    ) throws(ComoduleDecodeError) -> ComoduleFrame {
        var index: UInt16?
        func failure(_ code: ComoduleDecodeError.Code, _ message: String) -> ComoduleDecodeError {
            ComoduleDecodeError(
                code: code,
                characteristic: characteristic,
                length: bytes.count,
                propertyIndex: index,
                message: message
            )
        }
        guard characteristic == ComoduleGATT.propertyStream else {
            throw failure(
                .unknownCharacteristic,
                "Characteristic \(characteristic) is not the Comodule property stream \(ComoduleGATT.propertyStream)."
            )
        }
        var cursor = ByteCursor(bytes)
        guard let type = try? cursor.readByte(), let propertyIndex = try? cursor.read(UInt16.self),
            let lengthByte = try? cursor.readByte()
        else {
            throw failure(
                .truncatedHeader,
                "Comodule frame is \(bytes.count) bytes; "
                    + "expected a 4-byte header (type, index u16, length) and a value."
            )
        }
        index = propertyIndex
        guard let kind = ComoduleFrame.Kind(code: type) else {
            throw failure(
                .unknownFrameType,
                "Comodule frame type \(type) is not 1 (value), 2 (write acknowledged) or 3 (error)."
            )
        }
        guard lengthByte & 0xE0 == 0 else {
            throw failure(
                .reservedBitsSet,
                "Comodule length byte 0x\(String(lengthByte, radix: 16)) has reserved bits 5–7 set."
            )
        }
        let count = Int(lengthByte & 0x0F)
        let signed = lengthByte & 0x10 != 0
        guard (1...8).contains(count) else {
            throw failure(.invalidValueLength, "Comodule value length \(count) is not 1…8.")
        }
        let valueStart = cursor.offset
        guard let unsigned = try? cursor.readUnsigned(byteCount: count) else {
            throw failure(.truncatedValue, "Comodule frame declares a \(count)-byte value but has \(cursor.remaining).")
        }
        guard cursor.isAtEnd else {
            throw failure(
                .trailingBytes,
                "Comodule frame has \(cursor.remaining) bytes after its declared \(count)-byte value."
            )
        }
        guard let property = table[propertyIndex] else {
            throw failure(.unknownProperty, "Comodule property index \(propertyIndex) is not in the property table.")
        }
        let shift = UInt64(64 - 8 * count)
        let signedValue = Int64(bitPattern: unsigned << shift) >> shift
        if kind == .error {
            return ComoduleFrame(
                kind: kind,
                index: propertyIndex,
                identifier: property.identifier,
                unit: property.unit,
                errorCode: unsigned
            )
        }
        let value: ComodulePropertyValue
        switch property.type {
        case .range(let step, let lowerBound, let upperBound):
            let number = (signed ? Double(signedValue) : Double(unsigned)) * step + lowerBound
            guard ComoduleProperty.inRange(number, step: step, lowerBound: lowerBound, upperBound: upperBound) else {
                let raw = signed ? "\(signedValue)" : "\(unsigned)"
                throw failure(
                    .valueOutOfRange,
                    "Comodule \(property.identifier) raw \(raw) gives \(number), "
                        + "outside its read range \(lowerBound)…\(upperBound)."
                )
            }
            value = .range(number)
        case .states(let states):
            let position = signed ? signedValue : Int64(bitPattern: unsigned)
            // An unsigned value above Int64.max reads as negative here, so it fails too.
            guard position >= 0, position < Int64(states.count) else {
                let raw = signed ? "\(signedValue)" : "\(unsigned)"
                throw failure(
                    .valueOutOfRange,
                    "Comodule \(property.identifier) state \(raw) is outside its \(states.count) states."
                )
            }
            value = .state(index: Int(position), identifier: states[Int(position)])
        case .raw:
            value = .raw(Array(bytes[valueStart..<valueStart + count]))
        }
        return ComoduleFrame(
            kind: kind,
            index: propertyIndex,
            identifier: property.identifier,
            unit: property.unit,
            value: value
        )
    }
}
