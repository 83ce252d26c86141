extension DeviceFamily {
    /// Fjorden camera grips: button and dial events.
    public static let fjorden = DeviceFamily(known: "fjorden")
}
