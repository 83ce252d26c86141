import ArgumentParser
import Foundation
import LiveView

/// `--serve [HOST:]PORT` of record and replay, and `tlm serve`: starts a
/// live view, says where on standard error, and stops it.
enum LiveViewRunner {
    /// The `--serve` help.
    static let help = ArgumentHelp(
        "Serve the streams over the Foxglove WebSocket protocol at [HOST:]PORT (host 127.0.0.1 by default; "
            + "port 0 picks a free one).",
        valueName: "[host:]port")

    /// Parses `--serve`'s value with a clear error.
    static func parse(_ text: String) throws -> LiveViewAddress {
        do { return try LiveViewAddress(parsing: text) } catch { throw ValidationError(error.message) }
    }

    /// Starts a server at `address`; the bound address and, unless `quiet`,
    /// clients coming and going are written to standard error. With
    /// `sendsTime` (a playback) it declares the `time` capability.
    static func start(_ address: LiveViewAddress, quiet: Bool, sendsTime: Bool = false) async throws -> LiveViewServer {
        var options = LiveViewServer.Options(sendsTime: sendsTime)
        if !quiet { options.onEvent = { line in Self.log("live view: " + line) } }
        let server: LiveViewServer
        do {
            server = try await LiveViewServer.start(at: address, options: options)
        } catch {
            throw CLIError(error.message)
        }
        Self.log(
            "live view: serving ws://\(server.address) (Foxglove: Open connection, Foxglove WebSocket, "
                + "ws://\(server.address))")
        return server
    }

    /// Stops `server` once its clients took what is queued (at most 2 s),
    /// saying how many messages slow clients missed.
    static func stop(_ server: LiveViewServer, quiet: Bool, reason: String) async {
        await server.drain(timeout: .seconds(2))
        await server.close(reason: reason)
        let dropped = server.droppedCount
        if !quiet, dropped > 0 { Self.log("live view: \(dropped) message(s) dropped for slow clients") }
    }

    private static func log(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
