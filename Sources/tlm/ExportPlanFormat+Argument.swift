public import ArgumentParser
import RecordingExport

/// `tlm export --format csv|jsonl|mcap|parquet`.
extension ExportPlan.Format: ExpressibleByArgument {}
