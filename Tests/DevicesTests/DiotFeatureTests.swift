import Devices
import Testing

@Suite struct DiotFeatureTests {
    /// (code, member, name, topic name, value type) for a spread of the spec's table.
    static let table: [(UInt8, DiotFeature, String, String, DiotValueType?)] = [
        (0, .empty, "empty", "empty", nil),
        (1, .signalRedLed, "signalRedLed", "signal_red_led", .float),
        (3, .signalIRLed, "signalIRLed", "signal_ir_led", .float),
        (4, .heartRate, "heartRate", "heart_rate", .int),
        (5, .oxygen, "oxygen", "oxygen", .float),
        (7, .temperature, "temperature", "temperature", .float),
        (9, .accX, "accX", "acc_x", .float),
        (14, .gyroZ, "gyroZ", "gyro_z", .float),
        (15, .alertFallDetection, "alertFallDetection", "alert_fall_detection", .bool),
        (16, .awakeLastFallAsleepDate, "awakeLastFallAsleepDate", "awake_last_fall_asleep_date", .date),
        (18, .activityStepCounter, "activityStepCounter", "activity_step_counter", .int),
        (20, .activityLevel, "activityLevel", "activity_level", .int),
        (21, .activityLevelDate, "activityLevelDate", "activity_level_date", .date),
        (27, .hrAlert, "hrAlert", "hr_alert", .bool),
        (28, .hrAlertTriggerTop, "hrAlertTriggerTop", "hr_alert_trigger_top", .int),
        (31, .oxygenAlertTriggerBottom, "oxygenAlertTriggerBottom", "oxygen_alert_trigger_bottom", .int),
        (33, .temperatureAlertTriggerTop, "temperatureAlertTriggerTop", "temperature_alert_trigger_top", .float),
        (39, .personAge, "personAge", "person_age", .int),
        (42, .personGender, "personGender", "person_gender", .bool),
        (43, .currentDate, "currentDate", "current_date", .date),
    ]

    @Test(arguments: table)
    func staticMembersMatchTheSpecTable(
        code: UInt8,
        feature: DiotFeature,
        name: String,
        topicName: String,
        valueType: DiotValueType?
    ) {
        #expect(feature.rawValue == code)
        #expect(DiotFeature(rawValue: code) == feature)
        #expect(feature.name == name)
        #expect(feature.topicName == topicName)
        #expect(feature.valueType == valueType)
        #expect(feature.isKnown)
    }

    @Test func valueTypeCountsMatchTheSpecTable() {
        let types = DiotFeature.allKnown.map(\.valueType)
        #expect(DiotFeature.allKnown.count == 44)
        #expect(DiotFeature.allKnown.map(\.rawValue) == Array(0...43))
        #expect(types.filter { $0 == .float }.count == 25)
        #expect(types.filter { $0 == .int }.count == 7)
        #expect(types.filter { $0 == .bool }.count == 7)
        #expect(types.filter { $0 == .date }.count == 4)
        #expect(types.filter { $0 == nil }.count == 1)
    }

    @Test func namesAndTopicNamesAreUnique() {
        #expect(Set(DiotFeature.allKnown.map(\.name)).count == 44)
        #expect(Set(DiotFeature.allKnown.map(\.topicName)).count == 44)
        for feature in DiotFeature.allKnown {
            #expect(feature.topicName.allSatisfy { $0.isLowercase || $0 == "_" }, "\(feature.topicName)")
        }
    }

    @Test(arguments: [UInt8(44), 0x7F, 0xFF])
    func unknownCodesAreKeptWithGeneratedNames(code: UInt8) {
        let feature = DiotFeature(rawValue: code)
        #expect(!feature.isKnown)
        #expect(feature.valueType == nil)
        #expect(feature.unit == nil)
        #expect(feature.topicName == "unknown_\(code)")
        #expect(feature.name == "unknown_\(code)")
    }

    @Test func oxygenKeepsTheSDKSpellingAsSDKName() {
        #expect(DiotFeature.oxygen.name == "oxygen")
        #expect(DiotFeature.oxygen.sdkName == "oxigen")
        #expect(DiotFeature.heartRate.sdkName == "heartRate")
    }

    @Test func unitsAreConventionalMetadata() {
        #expect(DiotFeature.accX.unit == "[g]")
        #expect(DiotFeature.gyroY.unit == "deg/s")
        #expect(DiotFeature.temperature.unit == "Cel")
        #expect(DiotFeature.humidity.unit == "%")
        #expect(DiotFeature.heartRate.unit == "/min")
        #expect(DiotFeature.latitude.unit == "deg")
        #expect(DiotFeature.altitude.unit == "m")
        #expect(DiotFeature.signalRedLed.unit == nil)
        #expect(DiotFeature.empty.unit == nil)
    }

    @Test func featuresOrderByCode() {
        #expect(DiotFeature.accX < DiotFeature.accY)
        #expect(DiotFeature.allKnown.sorted() == DiotFeature.allKnown)
        #expect("\(DiotFeature.heartRate)" == "heartRate")
    }
}
