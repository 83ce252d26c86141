extension DeviceFamily {
    /// Daatrics DIoT sensors: nine data channels of 5-byte feature records.
    public static let diot = DeviceFamily(known: "diot")
}
