public import Recording

extension RecorderConfiguration {
    /// Settings given on top of a base configuration (`tlm record`'s chunk,
    /// segment, zstd and durability options over the defaults or a
    /// pipeline file's): each one given replaces the base's.
    ///
    /// ```swift
    /// var overrides = RecorderConfiguration.Overrides()
    /// overrides.zstdLevel = 9
    /// let configuration = overrides.applied(to: pipeline.recorderConfiguration())
    /// try configuration.validate()
    /// ```
    public struct Overrides: Sendable, Hashable {
        /// `RecorderConfiguration.chunkSize`, in bytes.
        public var chunkSize: UInt64?
        /// `RecorderConfiguration.chunkAge`.
        public var chunkAge: Duration?
        /// `RecorderConfiguration.zstdLevel`.
        public var zstdLevel: Int?
        /// `RecorderConfiguration.segmentSize`, in bytes.
        public var segmentSize: UInt64?
        /// `RecorderConfiguration.segmentDuration`.
        public var segmentDuration: Duration?
        /// `RecorderConfiguration.durability`.
        public var durability: Durability?

        /// No setting given.
        public init() {}

        /// `base` with every setting given here replacing its own. A chunk
        /// size beyond `Int` is clamped (and then refused by
        /// `RecorderConfiguration.validate()`).
        public func applied(to base: RecorderConfiguration = RecorderConfiguration()) -> RecorderConfiguration {
            var configuration = base
            if let chunkSize { configuration.chunkSize = Int(clamping: chunkSize) }
            if let chunkAge { configuration.chunkAge = chunkAge }
            if let zstdLevel { configuration.zstdLevel = zstdLevel }
            if let segmentSize { configuration.segmentSize = segmentSize }
            if let segmentDuration { configuration.segmentDuration = segmentDuration }
            if let durability { configuration.durability = durability }
            return configuration
        }
    }

    /// The settings in one line, as `tlm record -v` prints them: "chunks
    /// of 1048576 bytes or 1.0 seconds, zstd level 3, segments of 268435456
    /// bytes, durability chunk".
    public var summary: String {
        "chunks of \(chunkSize) bytes or \(chunkAge), zstd level \(zstdLevel), "
            + "segments of \(segmentSize) bytes"
            + (segmentDuration.map { " or \($0)" } ?? "") + ", durability \(durability)"
    }
}
