import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a recording keeps its MCAP segments and the ROS 2 bag's
/// `metadata.yaml`.
///
/// A recording directory is the bag (``root``): `000001.mcap`, `000002.mcap`,
/// … and `metadata.yaml` lie next to `index.sqlite` (and `tlm.lock`), because
/// rosbag2 and `rosbags` open `<bag>/metadata.yaml` and take each file it
/// lists by its name in the bag directory. Recordings made before kept them
/// in a `segments/` directory (``segmentsDirectory``); those are still read,
/// verified and recovered where they are, never moved, and the index keeps
/// their paths as `segments/<name>.mcap`.
///
/// ```swift
/// let (layout, paths) = try RecordingLayout.segmentPaths(directory: "ride")
/// // .root, ["000001.mcap", "000002.mcap"]
/// ```
package enum RecordingLayout: Sendable, Hashable {
    /// Segments and `metadata.yaml` in the recording directory: the layout
    /// every recording is written in.
    case root
    /// Segments and `metadata.yaml` in `<recording>/segments/`: the layout of
    /// recordings made before the recording directory became the bag.
    case segmentsDirectory

    /// The old layout's directory name.
    package static let segmentsDirectoryName = "segments"

    /// The file name of segment number `sequence`: `000001.mcap`.
    package static func segmentName(sequence: Int) -> String {
        String(format: "%06d.mcap", sequence)
    }

    /// The layout of the recording in `directory`: ``segmentsDirectory`` when
    /// it has a `segments/` directory and no `.mcap` file of its own,
    /// ``root`` otherwise (also for a directory that does not exist).
    package static func of(directory: String) -> RecordingLayout {
        guard isDirectory(directory + "/" + segmentsDirectoryName) else { return .root }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.contains(where: isSegmentName) ? .root : .segmentsDirectory
    }

    /// The directory of the bag: the recording itself, or its `segments/`.
    package func bagDirectory(of directory: String) -> String {
        switch self {
        case .root: directory
        case .segmentsDirectory: directory + "/" + Self.segmentsDirectoryName
        }
    }

    /// The path of segment file `name`, relative to the recording (as the
    /// index keeps it): `000001.mcap` or `segments/000001.mcap`.
    package func relativePath(ofSegment name: String) -> String {
        switch self {
        case .root: name
        case .segmentsDirectory: Self.segmentsDirectoryName + "/" + name
        }
    }

    /// The segment files of the recording in `directory`, as paths relative
    /// to it, in name order, with the layout they were found in.
    ///
    /// - Throws: ``RecordingError`` with code `.notFound` when `directory`
    ///   is not a directory that can be listed.
    package static func segmentPaths(
        directory: String
    ) throws(RecordingError) -> (
        layout: RecordingLayout, paths: [String]
    ) {
        guard FileManager.default.fileExists(atPath: directory) else {
            throw RecordingError(.notFound, "\(directory) does not exist (expected a recording directory)")
        }
        guard isDirectory(directory) else {
            throw RecordingError(.notFound, "\(directory) is not a directory; is it a recording?")
        }
        let layout = of(directory: directory)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: layout.bagDirectory(of: directory))
        else {
            throw RecordingError(
                .notFound, "\(layout.bagDirectory(of: directory)) cannot be listed; is it a recording?")
        }
        return (layout, names.filter(isSegmentName).sorted().map(layout.relativePath(ofSegment:)))
    }

    /// Whether a file name is a segment's: `<name>.mcap`, not hidden.
    package static func isSegmentName(_ name: some StringProtocol) -> Bool {
        name.hasSuffix(".mcap") && name != ".mcap" && !name.hasPrefix(".") && !name.contains("/")
    }

    /// Whether `path`, from the index, is a segment path of either layout
    /// (`<name>.mcap` or `segments/<name>.mcap`): one that cannot point
    /// outside the recording.
    package static func isSegmentPath(_ path: String) -> Bool {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        switch parts.count {
        case 1: return isSegmentName(parts[0])
        case 2: return parts[0] == segmentsDirectoryName && isSegmentName(parts[1])
        default: return false
        }
    }

    /// The file name of a segment path of either layout.
    package static func segmentName(ofPath path: String) -> Substring {
        path.split(separator: "/", omittingEmptySubsequences: false).last ?? Substring(path)
    }

    private static func isDirectory(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
    }
}
