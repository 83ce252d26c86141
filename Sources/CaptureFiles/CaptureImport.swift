public import Families

/// Imports Bluetooth capture files (btsnoop, pcapng, pcap): a first pass
/// (``survey(progress:)``) finds the devices, their families and GATT
/// tables; a second (``extractor(for:only:)``) streams every device's values
/// as notifications stamped with the capture's host times, and what was
/// lost, for a recorder. Both passes read the files in bounded memory.
///
/// ```swift
/// let capture = CaptureImport(files: ["btsnoop_hci.log"])
/// let inventory = try capture.survey()
/// var extractor = try capture.extractor(for: inventory)
/// while let output = try extractor.next() { print(output) }
/// ```
public struct CaptureImport: Sendable {
    /// The capture files.
    public var files: [String]
    /// The families values are decoded with.
    public var families: FamilyRegistry
    /// Handle assignments for captures without discovery.
    public var handleMap: HandleMap

    /// An import of `files` (read in the order of their first timestamps).
    public init(files: [String], families: FamilyRegistry = .builtIn, handleMap: HandleMap = HandleMap()) {
        self.files = files
        self.families = families
        self.handleMap = handleMap
    }

    /// The first pass: the devices, their families and handle tables.
    ///
    /// - Parameter progress: Called with (bytes read, bytes in all files).
    /// - Throws: ``CaptureFileError`` for a file that cannot be read.
    public func survey(progress: ((UInt64, UInt64) -> Void)? = nil) throws(CaptureFileError) -> CaptureInventory {
        let files = try ordered()
        var readers: [CaptureFileReader] = []
        for file in files { readers.append(try CaptureFileReader(path: file)) }
        let total = readers.reduce(0) { $0 + $1.size }
        var survey = CaptureSurvey(total: total, progress: progress)
        survey.inventory.files = files
        survey.inventory.byteCount = total
        var analyzer = HCITrafficAnalyzer()
        analyzer.keepsValueBytes = false  // counted, not kept
        var events: [CaptureEvent] = []
        // Read and analysed on this thread: the packets' arrays are freed
        // where they were made (handing them to another thread cost more in
        // malloc than the reading it took off this one).
        for reader in readers {
            survey.count = 0
            while true {
                // The run of values from here, read in one loop; then the record after it.
                try reader.readValues(analyzing: &analyzer, into: &survey)
                guard let record = try reader.next(analyzing: &analyzer, keepingBytes: false) else { break }
                switch record {
                case .value(let link, let handle, let kind, _, let time):
                    survey.countValue(
                        link: link, handle: handle, kind: kind, time: time, bytesRead: reader.bytesRead,
                        analyzer: &analyzer)
                case .packet(let packet):
                    survey.countPacket(time: packet.time, bytesRead: reader.bytesRead)
                    analyzer.add(packet, into: &events)
                    for event in events { survey.inventory.add(event) }
                    events.removeAll(keepingCapacity: true)
                }
            }
            if reader.endedInsideRecord { survey.inventory.lossCount += 1 }
            survey.inventory.skippedRecords += reader.skippedRecords
            survey.done += reader.size
            progress?(survey.done, total)
        }
        let last = survey.last
        var inventory = survey.inventory
        analyzer.finish(at: last, into: &events)
        for event in events { inventory.add(event) }
        inventory.lastTime = inventory.firstTime.map { _ in last }
        inventory.resolve(families: families, handleMap: handleMap)
        progress?(total, total)
        return inventory
    }

    /// The second pass: every value of the inventory's devices (or only of
    /// the device at `only`) as notifications, and the losses.
    ///
    /// - Throws: ``CaptureFileError`` for a file that cannot be opened.
    public func extractor(
        for inventory: CaptureInventory, only: Int? = nil
    ) throws(CaptureFileError)
        -> CaptureExtractor
    {
        var readers: [CaptureFileReader] = []
        for file in inventory.files { readers.append(try CaptureFileReader(path: file)) }
        return CaptureExtractor(readers: readers, inventory: inventory, only: only)
    }

    /// The files in the order they are read: by their first packet's time
    /// (a file without packets first; ties in the order given).
    ///
    /// - Throws: ``CaptureFileError`` for a file that cannot be read.
    public func orderedFiles() throws(CaptureFileError) -> [String] {
        try ordered()
    }

    /// The files in the order of their first packet's time (a file without packets first).
    private func ordered() throws(CaptureFileError) -> [String] {
        guard files.count > 1 else { return files }
        var keyed: [(time: UInt64, index: Int, file: String)] = []
        for (index, file) in files.enumerated() {
            let reader = try CaptureFileReader(path: file)
            keyed.append(((try? reader.next())?.time ?? 0, index, file))
        }
        return keyed.sorted { ($0.time, $0.index) < ($1.time, $1.index) }.map(\.file)
    }
}
