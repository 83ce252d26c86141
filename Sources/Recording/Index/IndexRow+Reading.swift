package import GRDB

extension IndexRow {
    /// Stream topics by MCAP channel id, from `streams` rows (`id`,
    /// `channel_id`, `topic`); two streams on one channel id are an error.
    package static func topicsByChannel(_ rows: [Row]) throws(RecordingError) -> [UInt16: String] {
        var topics: [UInt16: String] = [:]
        for row in rows {
            let stream = IndexRow(row, table: "streams")
            let channelID = try stream.channelID("channel_id")
            let topic = try stream.string("topic")
            if let other = topics[channelID] {
                throw stream.invalid("channel_id", "channel \(channelID) is also the channel of \(other)")
            }
            topics[channelID] = topic
        }
        return topics
    }
}

extension ChunkStatisticsRow {
    /// A `chunk_streams` row joined with its chunk (`offset`, `length`,
    /// `"chunks.id"`) and segment (`path`, `"segments.id"`), checked.
    package init(_ row: IndexRow, directory: String) throws(RecordingError) {
        let (path, offset, length) = try row.chunkLocation(directory: directory, chunkTable: "chunks")
        let firstTime = try row.time("first_time")
        let lastTime = try row.time("last_time")
        guard firstTime <= lastTime else {
            throw row.invalid("last_time", "\(lastTime) is before first_time \(firstTime)")
        }
        let minimum = try row.optionalValue("value_min")
        let maximum = try row.optionalValue("value_max")
        if let minimum, let maximum, minimum > maximum {
            throw row.invalid("value_max", "\(maximum) is below value_min \(minimum)")
        }
        let valueCount = try row.count("value_count")
        // A NULL sum of values is a NaN one (+∞ + −∞; SQLite stores NaN as NULL), never 0.
        let sum = try row.optionalValue("value_sum") ?? (valueCount > 0 ? .nan : nil)
        self.init(
            path: path, offset: offset, length: length, firstTime: firstTime, lastTime: lastTime,
            messageCount: try row.count("message_count"), valueCount: valueCount,
            minimum: minimum, maximum: maximum, sum: sum,
            firstValue: try row.optionalValue("value_first"), lastValue: try row.optionalValue("value_last"))
    }
}
