public import ArgumentParser
public import Recording

/// `--durability none|chunk|segment`.
extension Durability: ExpressibleByArgument {}
