public import Foundation
public import Recording

/// Recordings shipped as test resources, opened for replay in one line.
///
/// It lives in `TelemetryTestingRecordings`, apart from the manual clock
/// and marble tests of `TelemetryTesting`, because reading a recording
/// needs `Recording` (SQLite through GRDB, zstd).
///
/// Record a fixture once with `tlm record --simulate --seed N` (same seed,
/// same values), copy its directory into your test target's resources
/// (`resources: [.copy("Fixtures")]`), then:
///
/// ```swift
/// import Devices
/// import TelemetryTesting
/// import TelemetryTestingRecordings
/// import Testing
///
/// @Test func gesturesDriveTheUI() async throws {
///     let clock = ManualClock()
///     let values = try RecordedFixture.replay("ride", in: .module)
///         .values(of: "9F3A0C11", decoder: DiotDecoder(), clock: clock)
///     // advance `clock` and consume `values`...
/// }
/// ```
public enum RecordedFixture {
    /// Opens the recording directory `name` among a bundle's resources.
    ///
    /// - Parameters:
    ///   - name: The recording directory's name.
    ///   - bundle: The test target's bundle, usually `.module`.
    ///   - subdirectory: The resource folder holding recordings.
    /// - Throws: `RecordingError` with code `.notFound` when there is no such resource.
    public static func replay(
        _ name: String, in bundle: Bundle, subdirectory: String = "Fixtures"
    ) throws(RecordingError)
        -> RecordingReplay
    {
        guard let url = bundle.url(forResource: name, withExtension: nil, subdirectory: subdirectory) else {
            throw RecordingError(.notFound, "no recording \(subdirectory)/\(name) in \(bundle.bundlePath)")
        }
        return try RecordingReplay(directory: url.path)
    }
}
