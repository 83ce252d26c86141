public import MCAP
public import ROS2

extension RecordingError {
    /// The recording error for a failure of MCAP bytes: the same kind and
    /// words. A failure of a writer's output is the output's own error when
    /// that was a recording error.
    public init(_ error: MCAPError) {
        if error.code == .output, let inner = error.cause as? RecordingError {
            self = inner
            return
        }
        let code: Code =
            switch error.code {
            case .unsupported: .unsupported
            case .compression: .compression
            case .invalidConfiguration: .invalidConfiguration
            case .output: .io
            default: .corrupt
            }
        self.init(code, error.message, cause: error.cause)
    }

    /// The recording error for a failure of a message definition or a CDR
    /// payload: the same kind and words.
    public init(_ error: CDRError) {
        self.init(error.code == .unsupported ? .unsupported : .corrupt, error.message, cause: error.cause)
    }

    /// Runs `body`, reporting an MCAP failure as a recording error.
    @inline(__always)
    package static func mcap<T>(_ body: () throws(MCAPError) -> T) throws(RecordingError) -> T {
        do { return try body() } catch { throw RecordingError(error) }
    }

    /// Runs `body`, reporting a CDR failure as a recording error.
    @inline(__always)
    package static func cdr<T>(_ body: () throws(CDRError) -> T) throws(RecordingError) -> T {
        do { return try body() } catch { throw RecordingError(error) }
    }
}
