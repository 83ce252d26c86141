public import ArgumentParser
import RecordingExport

/// `tlm export --format csv|jsonl|mcap|parquet`.
extension ExportPlan.Format: ExpressibleByArgument {}

/// `tlm export --format mcap --compression zstd|lz4|none`.
extension ExportPlan.Compression: ExpressibleByArgument {}
