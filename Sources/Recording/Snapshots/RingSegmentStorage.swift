import Synchronization

/// Segment storage for a ring-mode ``Recorder``: the chunks its segment
/// writers write go into a ``SnapshotRing`` instead of a file; every other
/// record (header, definitions, summary) is dropped, and nothing touches
/// the disk.
final class RingSegmentStorage: SegmentStorage {
    let ring: SnapshotRing
    private let descriptors = Atomic<Int32>(0)

    init(ring: SnapshotRing) { self.ring = ring }

    func create(_ path: String) throws(RecordingError) -> Int32 {
        descriptors.add(1, ordering: .relaxed).newValue
    }

    func write(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(RecordingError) {
        _ = ring.add(records: bytes)
    }

    func sync(_ descriptor: Int32, path: String) throws(RecordingError) {}
    func close(_ descriptor: Int32, path: String) throws(RecordingError) {}
    func syncDirectory(_ path: String) throws(RecordingError) {}
}
