/// The file operations segment files are written with: create, append, sync,
/// close, and sync of a directory. ``POSIXSegmentStorage`` is the real one;
/// tests put a recording one in its place (through ``Recorder``'s package
/// initialiser) to simulate power loss at any operation.
///
/// A file is named by the descriptor ``create(_:)`` returns; its path comes
/// along for error messages. Implementations are shared by a segment's owner
/// and its chunk pipeline threads: one of them appends at a time, but with
/// ``Durability/chunk`` the pipeline's sync thread may sync a file while a
/// worker appends to it, so implementations must allow that (POSIX `write`
/// and `fdatasync` do; a sync covers at least the writes that returned
/// before it began).
package protocol SegmentStorage: Sendable {
    /// Creates a new, empty file for appending; fails if it already exists,
    /// so a recording is never silently overwritten. Returns its descriptor.
    func create(_ path: String) throws(RecordingError) -> Int32

    /// Appends all of `bytes` to the file (retrying short writes).
    func write(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(RecordingError)

    /// Returns once every byte written to the file so far, and its size, is
    /// on stable storage (`fdatasync`).
    func sync(_ descriptor: Int32, path: String) throws(RecordingError)

    /// Closes the file (without syncing it).
    func close(_ descriptor: Int32, path: String) throws(RecordingError)

    /// Returns once the directory's entries (the names of the files created
    /// in it so far) are on stable storage.
    func syncDirectory(_ path: String) throws(RecordingError)

    /// Asks the system to start writing `count` bytes of the file from
    /// `offset` to disk, without waiting for them: a later ``sync(_:path:)``
    /// then has less left to write. It promises nothing about durability
    /// (the bytes count as unsynced until a sync), so failing is silent.
    func startWriteback(_ descriptor: Int32, offset: UInt64, count: Int)
}

extension SegmentStorage {
    /// Does nothing (storages that only record operations).
    package func startWriteback(_ descriptor: Int32, offset: UInt64, count: Int) {}
}
