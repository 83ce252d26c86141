import Foundation

/// Keys in the live status of `tlm record`: `m` adds a marker, `s` asks a
/// flight recorder for a snapshot. Read from standard input when it is a
/// terminal, unbuffered and without echo, on a thread of their own; the
/// terminal's settings come back with ``stop()``.
final class StatusKeys: @unchecked Sendable {
    private var original = termios()
    private let handle: @Sendable (UInt8) -> Void

    /// Starts reading keys, or returns `nil` when standard input is not a terminal.
    static func start(_ handle: @escaping @Sendable (UInt8) -> Void) -> StatusKeys? {
        guard isatty(STDIN_FILENO) == 1 else { return nil }
        let keys = StatusKeys(handle: handle)
        guard tcgetattr(STDIN_FILENO, &keys.original) == 0 else { return nil }
        var raw = keys.original
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0 else { return nil }
        let thread = Thread { [handle] in
            var byte: UInt8 = 0
            while read(STDIN_FILENO, &byte, 1) == 1 { handle(byte) }
        }
        thread.start()
        return keys
    }

    private init(handle: @escaping @Sendable (UInt8) -> Void) { self.handle = handle }

    /// Gives the terminal its settings back.
    func stop() {
        var settings = original
        tcsetattr(STDIN_FILENO, TCSANOW, &settings)
    }
}
