import ByteCursor

extension DiotDecoder {
    /// Decodes a value notified by any DIoT characteristic into events, in order.
    ///
    /// - D001…D009: 5-byte records or `00` → ``DiotEvent/record(_:)`` each or
    ///   ``DiotEvent/channelEmpty(_:)``; length errors as ``decode(_:channel:)``.
    /// - C001 features reply: N × 5-byte records → ``DiotEvent/featureSetting(_:)``
    ///   each; empty or not a multiple of 5 throws.
    /// - C002 channels reply: N × `<channel> <code>` →
    ///   ``DiotEvent/channelBinding(channel:feature:)`` each; empty, odd length
    ///   or a channel outside 1…9 throws.
    /// - C003 rates reply: N × `<channel> <u32 ms>` →
    ///   ``DiotEvent/channelRate(channel:milliseconds:)`` each; empty, not a
    ///   multiple of 5 or a channel outside 1…9 throws.
    /// - 2A19 battery: one byte → ``DiotEvent/battery(percent:)``; a length
    ///   other than 1 or a percent above 100 throws.
    /// - 2A29, 2A24, 2A27, 2A26, 2A28: UTF-8, possibly empty →
    ///   ``DiotEvent/deviceInformation(field:value:)``; invalid UTF-8 throws.
    /// - FFD1 chip id: raw bytes → ``DiotEvent/chipID(_:)``; empty throws.
    /// - FF71 debug log: ASCII → ``DiotEvent/debugLog(_:)`` with trailing CR
    ///   and LF removed; empty or a byte above 0x7F throws.
    ///
    /// A value is checked whole before anything is emitted, so a malformed
    /// reply emits nothing. The data-channel path visits the records in place,
    /// as ``visitRecords(in:channel:body:)`` does (no allocation, no packet view).
    ///
    /// ```swift
    /// try DiotDecoder().decodeEvents([0x01, 0x64, 0x00, 0x00, 0x00], from: DiotGATT.ratesCommand) { print($0) }
    /// // channelRate(channel: ch1, milliseconds: 100)
    /// ```
    ///
    /// - Parameters:
    ///   - bytes: The notification's value.
    ///   - characteristic: The characteristic that notified.
    ///   - emit: Called once per event, in order; not called for a malformed value.
    /// - Throws: ``DiotDecodeError``: a length or content code, or
    ///   ``DiotDecodeError/Code/unknownCharacteristic`` for a characteristic
    ///   DIoT does not have.
    @inlinable
    public func decodeEvents(
        _ bytes: [UInt8],
        from characteristic: CharacteristicUUID,
        emit: (DiotEvent) -> Void
    ) throws(DiotDecodeError) {
        guard let channel = DiotGATT.dataChannel(for: characteristic) else {
            try decodeServiceValue(bytes, from: characteristic, emit: emit)
            return
        }
        // Visited in place: no packet view holds (retains) the bytes per notification.
        let visited = bytes.withUnsafeBytes { buffer in
            visitRecords(in: buffer, channel: channel) { emit(.record($0)) }
        }
        switch visited {
        case .success(let count): if count == 0 { emit(.channelEmpty(channel)) }
        case .failure(let error): throw error
        }
    }

    /// Decodes a value notified by any DIoT characteristic into an array of
    /// events: ``decodeEvents(_:from:emit:)`` collected.
    ///
    /// ```swift
    /// print(try DiotDecoder().decodeEvents([87], from: DiotGATT.batteryLevel)) // [battery(percent: 87)]
    /// ```
    ///
    /// - Parameters:
    ///   - bytes: The notification's value.
    ///   - characteristic: The characteristic that notified.
    /// - Returns: The events, in order.
    /// - Throws: ``DiotDecodeError`` as ``decodeEvents(_:from:emit:)`` does.
    public func decodeEvents(
        _ bytes: [UInt8], from characteristic: CharacteristicUUID
    ) throws(DiotDecodeError)
        -> [DiotEvent]
    {
        var events: [DiotEvent] = []
        try decodeEvents(bytes, from: characteristic) { events.append($0) }
        return events
    }

    /// Decodes the value of a characteristic that is not a data channel.
    @usableFromInline
    func decodeServiceValue(
        _ bytes: [UInt8],
        from characteristic: CharacteristicUUID,
        emit: (DiotEvent) -> Void
    ) throws(DiotDecodeError) {
        guard let layout = DiotCharacteristicLayout(characteristic) else {
            throw DiotDecodeError(
                code: .unknownCharacteristic,
                characteristic: characteristic,
                channel: nil,
                length: bytes.count
            )
        }
        func failure(_ code: DiotDecodeError.Code, _ byte: UInt8? = nil) -> DiotDecodeError {
            DiotDecodeError(
                code: code,
                characteristic: characteristic,
                channel: nil,
                length: bytes.count,
                offendingByte: byte
            )
        }
        /// Checks the length is a non-zero multiple of `size`; returns the entry count.
        func entries(of size: Int) throws(DiotDecodeError) -> Int {
            guard !bytes.isEmpty else { throw failure(.emptyValue) }
            guard bytes.count % size == 0 else { throw failure(.invalidLength) }
            return bytes.count / size
        }
        /// Checks every entry's first byte is a channel 1…9.
        func checkChannels(count: Int, size: Int) throws(DiotDecodeError) {
            for entry in 0..<count where DiotChannel(rawValue: bytes[entry * size]) == nil {
                throw failure(.invalidChannel, bytes[entry * size])
            }
        }
        switch layout {
        case .featuresReply:
            let count = try entries(of: DiotWire.recordSize)
            // `entries(of:)` checked the length, so every 5-byte entry is there.
            var cursor = ByteCursor(bytes)
            for index in 0..<count {
                guard let code = try? cursor.readByte(), let raw = try? cursor.read(UInt32.self) else { break }
                emit(.featureSetting(DiotFeatureSetting(index: index, feature: DiotFeature(rawValue: code), raw: raw)))
            }
        case .channelsReply:
            let count = try entries(of: 2)
            try checkChannels(count: count, size: 2)
            var cursor = ByteCursor(bytes)
            while let channel = try? cursor.readByte(), let feature = try? cursor.readByte() {
                emit(.channelBinding(channel: DiotChannel(unchecked: channel), feature: DiotFeature(rawValue: feature)))
            }
        case .ratesReply:
            let count = try entries(of: 5)
            try checkChannels(count: count, size: 5)
            var cursor = ByteCursor(bytes)
            while let channel = try? cursor.readByte(), let milliseconds = try? cursor.read(UInt32.self) {
                emit(.channelRate(channel: DiotChannel(unchecked: channel), milliseconds: milliseconds))
            }
        case .batteryLevel:
            guard !bytes.isEmpty else { throw failure(.emptyValue) }
            guard bytes.count == 1 else { throw failure(.invalidLength) }
            guard bytes[0] <= 100 else { throw failure(.batteryOutOfRange, bytes[0]) }
            emit(.battery(percent: bytes[0]))
        case .deviceInformation(let field):
            guard let value = String(validating: bytes, as: UTF8.self) else { throw failure(.invalidUTF8) }
            emit(.deviceInformation(field: field, value: value))
        case .chipID:
            guard !bytes.isEmpty else { throw failure(.emptyValue) }
            emit(.chipID(bytes))
        case .debugLog:
            guard !bytes.isEmpty else { throw failure(.emptyValue) }
            if let byte = bytes.first(where: { $0 > 0x7F }) { throw failure(.invalidASCII, byte) }
            var end = bytes.endIndex
            while end > 0, bytes[end - 1] == 0x0A || bytes[end - 1] == 0x0D { end -= 1 }
            emit(.debugLog(String(decoding: bytes[..<end], as: UTF8.self)))
        }
    }
}
