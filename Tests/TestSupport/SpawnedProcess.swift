import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Starts a process with `posix_spawn`: standard input `/dev/null`,
/// standard output and error into files, this process's environment. For
/// tests that watch the child themselves (its peak memory, its signal),
/// which `Foundation.Process` hides.
public enum SpawnedProcess {
    /// Starts `command` (the executable, then its arguments) and returns its pid.
    ///
    /// - Throws: ``SpawnedProcessError`` when it cannot be started.
    public static func start(_ command: [String], output: String, errors: String) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errors, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, command[0], &actions, nil, argv, environ)
        guard spawned == 0 else {
            throw SpawnedProcessError("cannot start \(command[0]): \(String(cString: strerror(spawned)))")
        }
        return pid
    }
}

/// Why a ``SpawnedProcess`` could not start.
public struct SpawnedProcessError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
