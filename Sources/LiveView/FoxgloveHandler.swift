import NIOCore
import NIOWebSocket

/// The WebSocket end of one connection: registers the client with the hub,
/// hands its text messages to it and answers pings and closes.
final class FoxgloveHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let hub: LiveHub
    private var client: LiveClient?

    init(hub: LiveHub) { self.hub = hub }

    func handlerAdded(context: ChannelHandlerContext) {
        let raw = try? context.pipeline.syncOperations.handler(type: RawFrameWriter.self)
        let client = LiveClient(
            channel: context.channel, capacity: hub.capacity,
            raw: raw.map { NIOLoopBound($0, eventLoop: context.eventLoop) })
        self.client = client
        hub.connect(client)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let client {
            hub.disconnect(client)
            self.client = nil
        }
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text:
            var bytes = frame.unmaskedData
            let text = bytes.readString(length: bytes.readableBytes) ?? ""
            if let client { hub.handle(text, from: client) }
        case .binary:
            client?.send(
                text: FoxgloveProtocol.status(.error, "binary client messages are not supported (no clientPublish)"))
        case .ping:
            let pong = WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)
            context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
        case .connectionClose:
            var data = context.channel.allocator.buffer(capacity: 2)
            data.write(webSocketErrorCode: .normalClosure)
            let close = WebSocketFrame(fin: true, opcode: .connectionClose, data: data)
            let written = context.eventLoop.makePromise(of: Void.self)
            written.futureResult.whenComplete { [channel = context.channel] _ in channel.close(promise: nil) }
            context.writeAndFlush(wrapOutboundOut(close), promise: written)
        default:
            break
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
