extension DeviceFamily {
    /// Obvious feature management: feature status and firmware upgrades.
    public static let obvious = DeviceFamily(known: "obvious")
}
