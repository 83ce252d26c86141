extension DeviceFamily {
    /// Comodule vehicle modules: range, state and raw properties.
    public static let comodule = DeviceFamily(known: "comodule")
}
