/// How far a ``Recorder`` goes to get segment bytes onto stable storage, and
/// so what a power loss (or an operating-system crash) can take from a
/// recording. A killed process loses nothing the recorder wrote, whatever the
/// setting: the bytes are in the kernel's page cache and reach the disk
/// later. The levels differ when the machine itself goes down.
///
/// | level | syncs | after a power loss |
/// | --- | --- | --- |
/// | ``Durability/none`` | never | anything since the kernel last wrote back |
/// | ``Durability/chunk`` (default) | after each chunk; the recording directory once per new file | every chunk the index names |
/// | ``Durability/segment`` | when a segment closes | every closed segment |
/// | ``Durability/batch`` | when a segment closes, before the index names its chunks | every chunk the index names |
///
/// The index (`index.sqlite`) is SQLite's business: it runs in WAL mode with
/// `synchronous = NORMAL`, so its last commits may roll back after a power
/// loss, which only makes it name fewer chunks (with ``Durability/none``,
/// `synchronous = OFF`: it is never synced either). `tlm recover` indexes again
/// every complete chunk it finds in the segments, and cuts what the index
/// names but the disk lost.
///
/// ```swift
/// var configuration = RecorderConfiguration()
/// configuration.durability = .segment  // fewer syncs; a power loss may cost the open segment
/// ```
public enum Durability: String, Sendable, Hashable, CaseIterable, Codable {
    /// Never sync, not even when a segment closes: for throwaway data and
    /// benchmarks. After a power loss any part of any segment written since
    /// the kernel last wrote its page cache back may be missing, torn or
    /// zeroed, and the index may name chunks that are gone (`tlm recover`
    /// cuts them).
    case none
    /// The chunk pipeline syncs the segment (`fdatasync`) after writing
    /// chunks and before reporting them written, so the index only ever names
    /// chunks whose bytes are on stable storage (one sync covers every chunk
    /// written before it began, so a slow disk syncs several chunks at once
    /// instead of stalling compression); the recording directory is
    /// synced once after each segment file is created, so the file itself
    /// survives (and its parent once, after the recording directory is
    /// created in it), and a segment is synced again when it closes. After a
    /// power loss every chunk the index names is intact; only the open chunk
    /// and the sealed ones not yet synced are lost. At most one sync per
    /// chunk: with the default chunk settings, one per MiB of uncompressed
    /// messages or one a second, whichever comes first.
    case chunk
    /// Sync a segment when it closes (and the recording directory after
    /// it), not before. After a power loss every closed segment is intact;
    /// the open segment may have lost any of its chunks, including ones the
    /// index names (`tlm recover` cuts them and records the loss).
    case segment
    /// For imports and other batch writes, which are run again rather than
    /// resumed: a segment is synced once, when it closes (then the
    /// recording directory; its parent once, after the recording directory
    /// is created), and only then are its chunks committed to the index. Nothing waits
    /// for the disk while chunks are written. After a power loss (or a kill)
    /// the index names only chunks on stable storage, as with
    /// ``Durability/chunk``, but of the open segment it names none: `tlm
    /// recover` indexes every complete chunk the disk kept. The chunks of
    /// the open segment wait in memory for the index (a few hundred bytes
    /// each, at most a segment's worth).
    case batch
}
