public import ArgumentParser
import RecordingExport

/// `tlm cat --format jsonl|table`.
extension MessageLinePrinter.Format: ExpressibleByArgument {}
