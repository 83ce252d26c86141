extension DiotDecoder: PacketDecoder {
    /// DIoT.
    public static var family: DeviceFamily { .diot }

    /// Decodes a data-channel notification through the family-neutral
    /// ``PacketDecoder`` interface: each record, in order, or one
    /// ``DiotEvent/channelEmpty(_:)``.
    ///
    /// - Throws: ``DiotDecodeError`` as ``decode(_:)`` does.
    @inlinable
    public func decode(_ notification: RawNotification, emit: (DiotEvent) -> Void) throws(DiotDecodeError) {
        switch try decode(notification) {
        case .empty(let channel):
            emit(.channelEmpty(channel))
        case .records(let records):
            for record in records { emit(.record(record)) }
        }
    }
}
