import Capture
import CaptureFiles
import Foundation
import Logging
import Pipeline
import Recording
import ServiceLifecycle
import Session
import UnixSignals

/// Runs a recording session the way every recording verb does: in a
/// `ServiceGroup` that turns SIGINT and SIGTERM into a graceful shutdown of
/// the session (the recording is closed complete), with the status line of
/// ``RecordingStatus`` beside it, and library errors turned into one line.
enum SessionRunner {
    /// Runs `session` to its end and returns what it recorded.
    ///
    /// - Parameter showsStatus: Draw the live status (recordings from devices; not replays, which show a progress bar).
    /// - Throws: ``CLIError`` with the library error's message.
    static func run(_ session: RecordingSession, showsStatus: Bool = true) async throws -> RecordingSummary {
        let logger = Logger(label: "tlm", factory: { _ in SwiftLogNoOpLogHandler() })
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [.init(service: session, successTerminationBehavior: .gracefullyShutdownGroup)],
                gracefulShutdownSignals: [.sigint, .sigterm],
                logger: logger))
        let status =
            showsStatus
            ? Task { [directory = session.directory] in
                await RecordingStatus(directory: directory).run()
            } : nil
        defer { status?.cancel() }
        do {
            try await group.run()
        } catch {
            status?.cancel()
            await status?.value
            throw CLIError(message(of: error))
        }
        // Clear the status before the summary is printed.
        status?.cancel()
        await status?.value
        guard let summary = session.summary else { throw CLIError("the session ended without a summary") }
        return summary
    }

    /// The one line a library error prints as.
    static func message(of error: any Error) -> String {
        switch error {
        case let error as RecordingError: error.message
        case let error as PipelineError: error.description
        case let error as CaptureError: error.message
        case let error as DeviceRequestError: error.message
        case let error as CaptureFileError: error.message
        case let error as CLIError: error.description
        default: "\(error)"
        }
    }
}
