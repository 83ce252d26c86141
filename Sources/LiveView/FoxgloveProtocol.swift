import Foundation

/// The subset of the Foxglove WebSocket protocol (`foxglove.websocket.v1`)
/// a live view speaks: JSON `serverInfo`, `advertise`, `status` and binary
/// message data and (with the `time` capability) time from the server;
/// `subscribe` and `unsubscribe` from clients.
enum FoxgloveProtocol {
    /// The WebSocket subprotocol.
    static let subprotocol = "foxglove.websocket.v1"
    /// The binary opcode of message data.
    static let messageDataOpcode: UInt8 = 0x01
    /// The bytes before a message's payload: opcode, subscription id, receive time.
    static let messageDataHeaderSize = 1 + 4 + 8
    /// The binary opcode of a time message (the server's clock, with the `time` capability).
    static let timeOpcode: UInt8 = 0x02
    /// A time message's size: opcode and timestamp (uint64 nanoseconds, little-endian).
    static let timeMessageSize = 1 + 8
    /// The capability of a server that sends time messages.
    static let timeCapability = "time"

    /// Status levels.
    enum Level: Int, Encodable {
        case info = 0
        case warning = 1
        case error = 2
    }

    private struct ServerInfo: Encodable {
        let op = "serverInfo"
        let name: String
        let capabilities: [String]
        let supportedEncodings: [String] = []
        let metadata: [String: String]
        let sessionId: String
    }

    private struct Advertise: Encodable {
        let op = "advertise"
        let channels: [LiveChannel]
    }

    private struct Status: Encodable {
        let op = "status"
        let level: Level
        let message: String
    }

    /// A client's request, as far as the server reads it.
    struct ClientMessage: Decodable {
        struct Subscription: Decodable {
            let id: UInt32
            let channelId: UInt32
        }

        let op: String
        let subscriptions: [Subscription]?
        let subscriptionIds: [UInt32]?
    }

    static func serverInfo(
        name: String, capabilities: [String], metadata: [String: String], sessionID: String
    ) -> String {
        json(ServerInfo(name: name, capabilities: capabilities, metadata: metadata, sessionId: sessionID))
    }

    static func advertise(_ channels: [LiveChannel]) -> String { json(Advertise(channels: channels)) }

    static func status(_ level: Level, _ message: String) -> String { json(Status(level: level, message: message)) }

    /// Parses a client's text message.
    ///
    /// - Throws: A `DecodingError` when it is not a JSON object with an `op`.
    static func parse(_ text: String) throws -> ClientMessage {
        try JSONDecoder().decode(ClientMessage.self, from: Data(text.utf8))
    }

    private static func json(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding these plain structs cannot fail.
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
