import Foundation
import TestSupport

/// The `tlm` executable built next to the test bundle.
let tlmPath: String = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    .appendingPathComponent("tlm").path

/// A process whose output goes to files (never blocking on a full pipe).
final class RunningProcess {
    let process = Process()
    let outURL: URL
    let errURL: URL

    init(_ executable: String, _ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let base = URL(fileURLWithPath: TestScratch.path("live-\(UUID().uuidString)"))
        outURL = base.appendingPathExtension("out")
        errURL = base.appendingPathExtension("err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        try process.run()
    }

    /// `tlm` with `arguments`.
    static func tlm(_ arguments: [String]) throws -> RunningProcess { try RunningProcess(tlmPath, arguments) }

    /// The venv's Python running `Tests/Python/foxglove_client.py` with `arguments`.
    static func foxgloveClient(_ arguments: [String]) throws -> RunningProcess {
        let python = repositoryRoot + "/.venv/bin/python"
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw PythonReaderError("no \(python): run `make setup` to create the venv with websockets")
        }
        return try RunningProcess(python, [repositoryRoot + "/Tests/Python/foxglove_client.py"] + arguments)
    }

    var errors: String { (try? String(contentsOf: errURL, encoding: .utf8)) ?? "" }
    var output: String { (try? String(contentsOf: outURL, encoding: .utf8)) ?? "" }

    /// The live view's URL, once the process printed it on standard error.
    func liveViewURL(timeout: Duration = .seconds(60)) throws -> String {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let line = errors.split(separator: "\n").first(where: { $0.contains("live view: serving ws://") }),
                let range = line.range(of: "ws://")
            {
                return String(line[range.lowerBound...].prefix { !$0.isWhitespace })
            }
            guard process.isRunning else { break }
            usleep(20_000)
        }
        throw PythonReaderError("no live view address on stderr: \(errors)")
    }

    /// Waits for the end (killing it after `timeout`) and returns the exit status.
    @discardableResult
    func wait(timeout: Duration = .seconds(90)) throws -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < deadline { usleep(20_000) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
            throw PythonReaderError("\(process.arguments ?? []) timed out; stderr: \(errors)")
        }
        return process.terminationStatus
    }

    /// The client's JSON document, after it ended successfully.
    func clientReport(timeout: Duration = .seconds(90)) throws -> ClientReport {
        let status = try wait(timeout: timeout)
        guard status == 0 else { throw PythonReaderError("foxglove_client.py failed (\(status)): \(errors)") }
        return try JSONDecoder().decode(ClientReport.self, from: Data(contentsOf: outURL))
    }
}

/// What `foxglove_client.py` saw.
struct ClientReport: Decodable, Sendable {
    struct Channel: Decodable, Hashable, Sendable {
        var id: Int
        var topic: String
        var encoding: String
        var schemaName: String
        var schema: String
        var schemaEncoding: String
    }

    struct Status: Decodable, Sendable {
        var level: Int
        var message: String
    }

    struct Message: Decodable, Hashable, Sendable {
        var topic: String
        var logTime: UInt64
        var fields: JSONValue

        enum CodingKeys: String, CodingKey {
            case topic
            case logTime = "log_time"
            case fields
        }
    }

    struct ServerInfo: Decodable, Sendable {
        var op: String
        var name: String
        var capabilities: [String]
    }

    /// A time message: the server's clock, and how many messages had arrived before it.
    struct Tick: Decodable, Sendable {
        var time: UInt64
        var messages: Int
    }

    enum CodingKeys: String, CodingKey {
        case serverInfo = "server_info"
        case channels, statuses, messages, times, end
    }

    var serverInfo: ServerInfo?
    var channels: [Channel]
    var statuses: [Status]
    var messages: [Message]
    /// The time messages, in order.
    var times: [Tick]
    /// Why the client stopped reading (idle, max-seconds, connection closed: …).
    var end: String?
}

/// Any JSON value, compared structurally.
indirect enum JSONValue: Decodable, Hashable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }
}

/// What `read_mcap.py` (the independent MCAP reader) read from the segments.
struct RecordedReport: Decodable {
    struct Segment: Decodable {
        var messages: [ClientReport.Message]
    }

    var segments: [Segment]

    /// The publish times of every message of `directory`'s segments, by topic, in the order written.
    static func publishTimes(_ directory: String, segments: [String]) throws -> [String: [UInt64]] {
        struct Times: Decodable {
            struct Segment: Decodable { var messages: [Message] }
            struct Message: Decodable {
                var topic: String
                var publishTime: UInt64
                enum CodingKeys: String, CodingKey {
                    case topic
                    case publishTime = "publish_time"
                }
            }
            var segments: [Segment]
        }
        let data = try runPython(script: "read_mcap.py", arguments: segments.map { directory + "/" + $0 })
        var result: [String: [UInt64]] = [:]
        for segment in try JSONDecoder().decode(Times.self, from: data).segments {
            for message in segment.messages { result[message.topic, default: []].append(message.publishTime) }
        }
        return result
    }

    /// Which recorded time stands as each message's `logTime` in ``read(_:segments:timestamps:)``.
    enum Timestamps { case logTime, publishTime }

    /// Every message of `directory`'s segments, by topic, in the order
    /// written, with its log time or (`timestamps: .publishTime`, what a
    /// live view sends by default) its publish time as `logTime`.
    static func read(
        _ directory: String, segments: [String], timestamps: Timestamps
    ) throws -> [String: [ClientReport.Message]] {
        var messages = try read(directory, segments: segments)
        guard timestamps == .publishTime else { return messages }
        for (topic, times) in try publishTimes(directory, segments: segments) {
            for (index, time) in times.enumerated() where index < messages[topic, default: []].count {
                messages[topic]![index].logTime = time
            }
        }
        return messages
    }

    /// Every message of `directory`'s segments, by topic, in the order written.
    static func read(_ directory: String, segments: [String]) throws -> [String: [ClientReport.Message]] {
        let data = try runPython(script: "read_mcap.py", arguments: segments.map { directory + "/" + $0 })
        let report = try JSONDecoder().decode(RecordedReport.self, from: data)
        var result: [String: [ClientReport.Message]] = [:]
        for segment in report.segments {
            for message in segment.messages { result[message.topic, default: []].append(message) }
        }
        return result
    }
}
