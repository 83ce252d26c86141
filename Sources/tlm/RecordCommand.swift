import ArgumentParser
import Devices
import Foundation
import Recording

/// `tlm record`: records a session until its duration ends or SIGINT/SIGTERM.
struct RecordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record a session into a new recording directory.",
        discussion: """
            Ctrl-C (SIGINT) or SIGTERM stops recording: the open chunk and segment are closed and the index \
            committed, so the recording is complete. Exit status: 0 when nothing was lost, 3 when loss \
            records were written (see `tlm info`), 1 on an error.

            Examples:
              tlm record --simulate --duration 10s --output ride
              tlm record --simulate --family diot --seed 7 --chunk-age 250ms --zstd-level 5
              tlm record --simulate --scenario faults --duration 1m   # exit status 3: loss recorded
            """
    )

    @Flag(help: "Record simulated devices (seeded, deterministic values), one per family: diot, comodule, jacquard, fjorden, obvious.")
    var simulate = false

    @Option(name: .customLong("family"),
            help: "With --simulate: a family to simulate (repeatable). Default: every family.")
    var families: [FamilyArgument] = []

    @Option(help: "With --simulate: clean (well-behaved devices) or faults (jitter, bursts, disconnects, malformed packets).")
    var scenario: SimulationScenario = .clean

    @Option(help: "How long to record, e.g. 500ms, 10s, 2m, 1h. Default: until Ctrl-C.")
    var duration: DurationArgument?

    @Option(help: "The new recording directory (must not exist or be empty). Default: tlm-<UTC time>.",
            completion: .directory)
    var output: String?

    @Option(help: "Seed of the simulated devices: the same seed gives the same values.")
    var seed: UInt64 = 1

    @Option(help: "Close a chunk at this many uncompressed bytes.")
    var chunkSize: Int = RecorderConfiguration().chunkSize

    @Option(help: "Close a chunk when its oldest message is this old.")
    var chunkAge = DurationArgument(argument: "1s")!

    @Option(help: "zstd compression level, 1...22.")
    var zstdLevel: Int = RecorderConfiguration().zstdLevel

    @Option(help: "Start a new segment at this many bytes (e.g. 268435456).")
    var segmentSize: UInt64 = RecorderConfiguration().segmentSize

    @Option(help: "Start a new segment after this much time, e.g. 10m.")
    var segmentDuration: DurationArgument?

    func validate() throws {
        guard simulate else {
            throw ValidationError("nothing to record: pass --simulate (live BLE capture arrives with the Capture module)")
        }
        do { try recorderConfiguration.validate() } catch { throw ValidationError(error.message) }
        for family in families.map(\.family) where !simulatableFamilies.contains(family) {
            throw ValidationError("the \(family.rawValue) simulator is not available yet; choose from "
                                  + simulatableFamilies.map(\.rawValue).joined(separator: ", "))
        }
    }

    var recorderConfiguration: RecorderConfiguration {
        var configuration = RecorderConfiguration()
        configuration.chunkSize = chunkSize
        configuration.chunkAge = chunkAge.duration
        configuration.zstdLevel = zstdLevel
        configuration.segmentSize = segmentSize
        configuration.segmentDuration = segmentDuration?.duration
        return configuration
    }

    func run() async throws {
        let directory = output ?? "tlm-" + Self.timestampForName()
        let chosen = families.isEmpty ? simulatableFamilies : families.map(\.family)
        let session = SimulatedSession(
            directory: directory, configuration: recorderConfiguration, seed: seed, duration: duration?.duration,
            families: chosen, scenario: scenario)
        let signals = SignalWatcher(signals: [SIGINT, SIGTERM])
        print("Recording simulated \(chosen.map(\.rawValue).joined(separator: ", ")) (seed \(seed)) to \(directory)"
              + (duration.map { " for \($0)" } ?? "") + "; Ctrl-C stops.")
        let summary: SimulatedSession.Summary
        do {
            summary = try await session.run(stop: signals)
        } catch let error as RecordingError {
            throw CLIError(error.message)
        }
        signals.cancel()
        print("Recorded \(summary.messageCount) messages on \(summary.streamCount) streams "
              + "in \(summary.segmentCount) segment(s), \(summary.byteSize) bytes"
              + (summary.stoppedBySignal ? " (stopped by signal)" : "") + ".")
        if summary.lossCount > 0 {
            print("Loss: \(summary.lossCount) elements; see `tlm info \(directory)`.")
            throw ExitCode(3)
        }
    }

    static func timestampForName() -> String {
        let style = Date.ISO8601FormatStyle(timeSeparator: .omitted)
        return style.format(Date()).replacingOccurrences(of: ":", with: "")
    }
}

/// A device family on the command line, by its name (`diot`, `jacquard`, ...).
struct FamilyArgument: ExpressibleByArgument, Hashable {
    let family: DeviceFamily

    init?(argument: String) {
        guard let family = DeviceFamily(rawValue: argument.lowercased()) else { return nil }
        self.family = family
    }

    static var allValueStrings: [String] { DeviceFamily.allCases.map(\.rawValue) }
}
