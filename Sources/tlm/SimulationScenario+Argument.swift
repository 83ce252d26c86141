public import ArgumentParser
public import Pipeline

/// `--scenario clean|faults`.
extension SimulationScenario: ExpressibleByArgument {}
