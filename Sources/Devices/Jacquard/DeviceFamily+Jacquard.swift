extension DeviceFamily {
    /// Google Jacquard tags: gestures, touch frames and IMU samples.
    public static let jacquard = DeviceFamily(known: "jacquard")
}
