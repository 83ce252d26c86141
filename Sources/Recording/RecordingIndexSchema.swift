import GRDB

/// The index schema version this build writes (the last migration's name).
public enum RecordingIndexSchema {
    /// For example `v4`.
    public static var current: String { RecordingIndex.migrator.migrations.last ?? "none" }
}
