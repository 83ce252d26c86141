import ArgumentParser
import Quantities
import Recording
import RecordingExport

/// `tlm lake compact LAKE`: each partition's small files merged into large ones.
struct LakeCompactCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compact",
        abstract: "Merge each partition's small files into large ones, atomically for readers.",
        discussion: """
            In each leaf partition of each table, files (in name order) are merged in runs of at most \
            --target-size bytes: the row groups are copied as they are (rows and values unchanged), the \
            partition is rebuilt beside the tables and exchanged with the live one in one atomic step, so a \
            reader listing the table sees all old files or all new ones. The manifest keeps every recording \
            (adding one again still adds nothing); `tlm lake verify` passes after it. An export into the \
            lake waits until the compaction ends. Compacting again without new files does nothing.

            Examples:
              tlm lake compact fleet
              tlm lake compact fleet --table tlm_msg_DiotSample --target-size 512MiB
            """
    )

    @Argument(help: "The lake directory.", completion: .directory)
    var lake: String

    @Option(help: "Only this table (a directory of the lake).")
    var table: String?

    @Option(
        help: "The largest merged file, about, e.g. 64MiB, 1GiB. Default: 256MiB.", transform: ByteSize.init(parsing:))
    var targetSize: ByteSize?

    func run() throws {
        let target = Int64(clamping: targetSize?.bytes ?? 256 << 20)
        let compaction: LakeCompaction
        do { compaction = try ParquetLake(directory: lake).compact(table: table, targetBytes: target) } catch {
            throw CLIError(error.message)
        }
        if compaction.isNoOp {
            print("Lake \(TerminalText.escaped(lake)): nothing to merge (\(compaction.filesAfter) files).")
        } else {
            print(
                "Lake \(TerminalText.escaped(lake)): merged \(compaction.filesMerged) files into "
                    + "\(compaction.filesWritten) in \(compaction.partitions) partitions "
                    + "(\(compaction.rows) rows); \(compaction.filesAfter) files now.")
        }
    }
}
