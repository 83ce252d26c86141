public import ArgumentParser
public import Recording

/// `--durability none|chunk|segment|batch`.
extension Durability: ExpressibleByArgument {}
