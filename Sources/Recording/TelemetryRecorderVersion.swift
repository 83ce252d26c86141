/// The version of Telemetry Recorder, as written into every segment's Header
/// library string and printed by `tlm --version`.
public enum TelemetryRecorderVersion {
    /// The version string, semantic versioning.
    public static let current = "0.1.0"
}
