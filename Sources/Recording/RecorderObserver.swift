/// Sees what a ``Recorder`` records, as it records it: each stream when it is
/// registered and each message when it is written (a live view serves them).
///
/// The recorder calls it synchronously on the task that writes, so an
/// observer must return at once: copy what it keeps and hand it on, never
/// wait for anything (a slow consumer must not stall the recording).
public protocol RecorderObserver: AnyObject, Sendable {
    /// A stream was registered; its messages come with `channelID`.
    func recorder(didAddStream descriptor: StreamDescriptor, channelID: UInt16)

    /// A message of the stream `channelID` was written with `logTime`; the
    /// payload is valid only during the call.
    func recorder(didWrite channelID: UInt16, logTime: UInt64, payload: UnsafeRawBufferPointer)
    /// A message of the stream `channelID` was written with `logTime` and
    /// `publishTime` (its sample time on a typed stream); the payload is
    /// valid only during the call. What the recorder calls: by default, the
    /// method without `publishTime`.
    func recorder(didWrite channelID: UInt16, logTime: UInt64, publishTime: UInt64, payload: UnsafeRawBufferPointer)
}

extension RecorderObserver {
    /// Calls ``recorder(didWrite:logTime:payload:)``: an observer that needs no publish time implements only that.
    public func recorder(
        didWrite channelID: UInt16, logTime: UInt64, publishTime: UInt64, payload: UnsafeRawBufferPointer
    ) {
        recorder(didWrite: channelID, logTime: logTime, payload: payload)
    }
}
