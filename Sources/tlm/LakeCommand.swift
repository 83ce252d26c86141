import ArgumentParser

/// `tlm lake info|verify|compact LAKE`: a lake's manifest, printed or checked; its files merged.
struct LakeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lake",
        abstract: "Show, check or compact a lake of recordings (tlm export --format parquet --partition ...).",
        discussion: """
            A lake is a directory of Parquet tables, one per schema, Hive-partitioned, that many recordings \
            are added to (`tlm export REC --format parquet --partition date,device --output LAKE`); its \
            manifest, LAKE/_tlm/manifest.json, lists its recordings, tables and files (docs/lake.md).

            Examples:
              tlm lake info fleet
              tlm lake verify fleet
              tlm lake compact fleet
            """,
        subcommands: [LakeInfoCommand.self, LakeVerifyCommand.self, LakeCompactCommand.self]
    )
}
