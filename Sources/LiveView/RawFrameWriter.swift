import NIOCore

/// The head end of a live-view connection's pipeline (added first, after
/// the WebSocket upgrade): a client's data frames, which it encodes itself
/// a batch at a time into one buffer, are written from here, past the
/// WebSocket frame encoder, so a batch costs one write and no buffer per
/// frame. Used on the connection's event loop only.
///
/// Kept beside NIOWebSocket's `WebSocketFrameEncoder` (which frames the
/// control messages) because it earns its place: 1M 33-byte message-data
/// frames to a loopback client in batches of 1,024 took 31–121 ms of wall
/// time and 31–45 ms of CPU this way, against 3.3–5.0 s and 1.5–2.1 s as one
/// `WebSocketFrame` per message through the encoder (five rounds each on a
/// loaded 2-core VM, release build, NIO 2.101).
final class RawFrameWriter: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// The handler's context while it is in the pipeline.
    private(set) var context: ChannelHandlerContext?

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

    /// Writes encoded frames toward the socket; fails `promise` when the handler left the pipeline.
    func write(frames: ByteBuffer, promise: EventLoopPromise<Void>?) {
        guard let context else {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        context.write(wrapOutboundOut(frames), promise: promise)
    }
}

@available(*, unavailable)
extension RawFrameWriter: Sendable {}
