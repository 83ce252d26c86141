import Foundation
import RecordingExport
import TestSupport
import Testing

@testable import Recording

/// Issue 36 item 13: an export never writes outside its output: not into
/// the root directory, and not through a symbolic link planted in a shared
/// partition tree.
@Suite struct ExportPathTests {
    @Test func theRootDirectoryIsRefused() throws {
        for output in ["/", "/tmp/.."] {
            let error = #expect(throws: RecordingError.self) {
                _ = try ExportPlan.parquet(output: output, partition: nil)
            }
            #expect(
                error?.message
                    == "'\(output)' resolves to the root directory; choose an output directory for the export")
        }
    }

    @Test func aSymlinkedPartitionDirectoryIsNotFollowed() throws {
        let (directory, _) = try IndexValidationTests.recording()
        let reader = try RecordingReader(directory: directory)
        let lake = makeTemporaryDirectory() + "/lake"
        let outside = makeTemporaryDirectory() + "/outside"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: lake, withIntermediateDirectories: true)
        // The device's partition is a link to a directory outside the lake.
        try FileManager.default.createSymbolicLink(atPath: lake + "/device=IDX", withDestinationPath: outside)
        let exporter = try ParquetExporter(directory: lake, partitionKeys: [.device])
        let error = #expect(throws: RecordingError.self) {
            _ = try reader.export(topics: reader.topics, into: exporter)
        }
        #expect(error?.message == "\(lake)/device=IDX is a symbolic link; an export never writes through one")
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside).isEmpty)
    }
}
