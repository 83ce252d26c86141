import NIOCore

/// The head end of a live-view connection's pipeline (added first, after
/// the WebSocket upgrade): a client's data frames, which it encodes itself
/// a batch at a time into one buffer, are written from here, past the
/// WebSocket frame encoder, so a batch costs one write and no buffer per
/// frame. Used on the connection's event loop only.
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
