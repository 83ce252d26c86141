public import ArgumentParser
public import Recording

/// `tlm export --format csv|jsonl|mcap|parquet`.
extension ExportPlan.Format: ExpressibleByArgument {}
