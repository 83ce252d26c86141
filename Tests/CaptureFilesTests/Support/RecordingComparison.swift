import Foundation
import Recording
import Testing

/// One message as compared: log time and payload.
struct ComparedMessage: Hashable {
    var logTime: UInt64
    var payload: [UInt8]
}

/// The messages of `topic` in a recording.
func messages(_ directory: String, _ topic: String) throws -> [ComparedMessage] {
    try RecordingReader(directory: directory).messages(topics: [topic]).map {
        ComparedMessage(logTime: $0.logTime, payload: $0.payload)
    }
}

/// Checks that every stream of `reference` (its loss stream aside) is in
/// `imported` with the same messages, and returns how many typed messages were compared.
@discardableResult
func expectSameStreams(
    _ imported: String, as reference: String, sourceLocation: SourceLocation = #_sourceLocation
)
    throws -> Int
{
    let importedReader = try RecordingReader(directory: imported)
    let referenceReader = try RecordingReader(directory: reference)
    let topics = referenceReader.topics.filter { $0 != "/tlm/loss" }
    let missing = Set(topics).subtracting(importedReader.topics)
    #expect(missing.isEmpty, "streams missing from the import: \(missing.sorted())", sourceLocation: sourceLocation)
    var typed = 0
    for topic in topics where !missing.contains(topic) {
        let got = try messages(imported, topic)
        let want = try messages(reference, topic)
        #expect(
            got == want, "\(topic): \(got.count) messages imported, \(want.count) expected",
            sourceLocation: sourceLocation)
        if !topic.contains("/raw/") { typed += want.count }
    }
    return typed
}

/// The loss records of a recording.
func losses(_ directory: String) throws -> [RecordingInfo.Loss] {
    try RecordingInfo.load(from: directory).losses
}
