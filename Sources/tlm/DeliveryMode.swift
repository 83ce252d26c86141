import ArgumentParser

/// `--delivery ble|due`: how simulated devices' notifications reach the recorder.
enum DeliveryMode: String, ExpressibleByArgument, CaseIterable {
    /// As Bluetooth LE delivers: drifting device clocks, connection events,
    /// retransmissions (and supervision timeouts with `--scenario faults`).
    case ble
    /// Each notification stamped when it is due (the simulators' own timing).
    case due
}
