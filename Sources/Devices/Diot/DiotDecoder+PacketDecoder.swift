extension DiotDecoder: PacketDecoder {
    /// DIoT.
    public static var family: DeviceFamily { .diot }

    /// Decodes a notification from any DIoT characteristic through the
    /// family-neutral ``PacketDecoder`` interface: each data-channel record
    /// in order or one ``DiotEvent/channelEmpty(_:)``, and the events of the
    /// command, battery, device information, chip id and debug
    /// characteristics (see ``decodeEvents(_:from:emit:)``).
    ///
    /// - Throws: ``DiotDecodeError`` as ``decodeEvents(_:from:emit:)`` does.
    @inlinable
    public func decode(_ notification: RawNotification, emit: (DiotEvent) -> Void) throws(DiotDecodeError) {
        try decodeEvents(notification.bytes, from: notification.characteristic, emit: emit)
    }
}
