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
}
