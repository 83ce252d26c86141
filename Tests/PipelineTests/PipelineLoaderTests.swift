import Devices
import Families
import Pipeline
import ROS2
import Recording
import Testing

/// Every class of malformed pipeline gives a `PipelineError` with the exact
/// file, line, column and message.
@Suite struct PipelineLoaderTests {
    /// A valid pipeline's head: one simulated DIoT device and one Comodule device.
    static let head = """
        name: test
        devices:
          - family: diot
            source: {simulated: {seed: 1}}
          - family: comodule
            source: {simulated: {seed: 1}}

        """

    func error(_ yaml: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> PipelineError? {
        do {
            _ = try Pipeline(yaml: yaml, file: "p.yaml")
            Issue.record("expected an error", sourceLocation: sourceLocation)
            return nil
        } catch {
            return error
        }
    }

    func expect(
        _ yaml: String, _ code: PipelineError.Code, _ description: String,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) {
        guard let error = error(yaml, sourceLocation: sourceLocation) else { return }
        #expect(error.description == description, sourceLocation: sourceLocation)
        #expect(error.code == code, "code \(error.code)", sourceLocation: sourceLocation)
    }

    @Test func loadsAValidPipeline() throws {
        let pipeline = try Pipeline(
            yaml: Self.head + """
                record: [/diot/*/acc_*]
                derived:
                  - name: speed
                    from: /comodule/*/speed
                    operators:
                      - map: {from: kilometer_per_hour, to: meter_per_second}
                      - filter: {min: 1, max: 30}
                      - debounce: 250ms
                      - throttle: {interval: 1s, latest: false}
                      - sample: 2s
                      - chunked: {count: 10, every: 5s, reduce: max}
                      - removeDuplicates
                      - prefix: 100
                recording: {segmentSize: 64MiB, segmentDuration: 10m, chunkSize: 512KiB, chunkAge: 250ms, zstdLevel: 7}
                """, file: "p.yaml")
        #expect(pipeline.name == "test")
        #expect(pipeline.devices.map(\.family) == [.diot, .comodule])
        #expect(pipeline.derived.first?.unit == "m/s")  // the former name, read as its UCUM code
        #expect(pipeline.derived.first?.operators.count == 8)
        #expect(pipeline.derived.first?.operators[2] == .debounce(.milliseconds(250)))
        #expect(pipeline.derived.first?.operators[3] == .throttle(.seconds(1), latest: false))
        #expect(pipeline.derived.first?.operators[5] == .chunked(count: 10, every: .seconds(5), reduce: .max))
        let configuration = pipeline.recorderConfiguration()
        #expect(configuration.segmentSize == 64 << 20)
        #expect(configuration.segmentDuration == .seconds(600))
        #expect(configuration.chunkSize == 512 << 10)
        #expect(configuration.chunkAge == .milliseconds(250))
        #expect(configuration.zstdLevel == 7)
        #expect(pipeline.records(topic: "/diot/X/acc_y"))
        #expect(!pipeline.records(topic: "/diot/X/gyro_y"))
        // `tlm record --exclude`: excluded even where `record` takes it.
        var excluding = pipeline
        excluding.exclude = [TopicPattern("**/acc_y")]
        #expect(!excluding.records(topic: "/diot/X/acc_y") && excluding.records(topic: "/diot/X/acc_x"))
        excluding.record = nil
        #expect(!excluding.records(topic: "/diot/X/acc_y") && excluding.records(topic: "/diot/X/gyro_y"))
    }

    @Test func unreadableFile() {
        #expect(throws: PipelineError.self) { try Pipeline(contentsOfFile: "/nonexistent/p.yaml") }
        do { _ = try Pipeline(contentsOfFile: "/nonexistent/p.yaml") } catch {
            #expect(error.code == .io)
            #expect(error.description.hasPrefix("/nonexistent/p.yaml: cannot read the pipeline file"))
        }
    }

    @Test func invalidYAML() {
        let error = error("name: a\ndevices: [\n")
        #expect(error?.code == .syntax)
        #expect(error?.description.hasPrefix("p.yaml:3:1: not valid YAML:") == true, "\(String(describing: error))")
    }

    @Test func emptyFile() {
        expect("", .missingKey, "p.yaml:1:1: the pipeline is empty (expected a mapping with name, devices, ...)")
    }

    @Test func unknownTopLevelKey() {
        expect(
            Self.head + "recordings: {}\n", .unknownKey,
            "p.yaml:7:1: unknown key 'recordings' in the pipeline (expected one of: name, devices, record, derived, triggers, recording)"
        )
    }

    @Test func missingName() {
        expect("devices: []\n", .missingKey, "p.yaml:1:1: the pipeline needs 'name' (a name for the pipeline)")
    }

    @Test func duplicateKey() {
        expect(
            Self.head + "name: again\n", .duplicate,
            "p.yaml:7:1: duplicate key 'name' (first at line 1; each key may appear once)")
    }

    @Test func noDevices() {
        expect("name: a\ndevices: []\n", .missingKey, "p.yaml:2:10: devices: expected at least one device")
    }

    @Test func devicesNotAList() {
        expect(
            "name: a\ndevices: {family: diot}\n", .wrongType, "p.yaml:2:10: devices: expected a list, found a mapping")
    }

    @Test func unknownFamily() {
        expect(
            "name: a\ndevices:\n  - family: diotx\n    source: {simulated: {}}\n", .invalidValue,
            "p.yaml:3:13: unknown family 'diotx' (expected one of: diot, comodule, jacquard, fjorden, obvious)")
    }

    @Test func missingSource() {
        expect(
            "name: a\ndevices:\n  - family: diot\n", .missingKey,
            "p.yaml:3:5: device 'diot' needs 'source' (simulated, live or capture)")
    }

    @Test func twoSources() {
        expect(
            "name: a\ndevices:\n  - family: diot\n    source: {simulated: {}, capture: x.cap}\n", .invalidValue,
            "p.yaml:4:13: a device source needs exactly one of: simulated, live, capture")
    }

    @Test func unknownScenario() {
        expect(
            "name: a\ndevices:\n  - family: diot\n    source: {simulated: {scenario: noisy}}\n", .invalidValue,
            "p.yaml:4:36: unknown scenario 'noisy' (expected one of: clean, faults)")
    }

    @Test func seedNotANumber() {
        expect(
            "name: a\ndevices:\n  - family: diot\n    source: {simulated: {seed: one}}\n", .wrongType,
            "p.yaml:4:32: seed: expected a whole number, found 'one'")
    }

    @Test func rateOnlyForDiot() {
        expect(
            "name: a\ndevices:\n  - family: comodule\n    source: {simulated: {rate: 200}}\n", .invalidValue,
            "p.yaml:4:26: rate applies to diot devices only (this device is comodule)")
    }

    @Test func duplicateDeviceName() {
        expect(
            "name: a\ndevices:\n  - {name: x, family: diot, source: {simulated: {seed: 1}}}\n"
                + "  - {name: x, family: diot, source: {simulated: {seed: 2}}}\n", .duplicate,
            "p.yaml:4:12: duplicate device name 'x' (first declared at line 3; give each device its own name)")
    }

    @Test func sameSimulatedDeviceTwice() {
        expect(
            "name: a\ndevices:\n  - {name: x, family: diot, source: {simulated: {seed: 1}}}\n"
                + "  - {name: y, family: diot, source: {simulated: {seed: 1}}}\n", .duplicate,
            "p.yaml:4:37: device 'y' would be the same simulated device as 'x' (diot c15c0289ec2d4a91a7ec8e65a18debbe); give it another seed"
        )
    }

    @Test func liveNeedsAddressOrName() {
        expect(
            "name: a\ndevices:\n  - family: diot\n    source: {live: {}}\n", .invalidValue,
            "p.yaml:4:20: a live device needs exactly one of: address, name")
    }

    @Test func unknownOperator() {
        expect(
            Self.head + "derived:\n  - name: s\n    from: /comodule/*/speed\n    operators:\n      - debouce: 500ms\n",
            .invalidValue,
            "p.yaml:11:9: unknown operator 'debouce' (expected one of: map, filter, debounce, throttle, sample, chunked, removeDuplicates, prefix)"
        )
    }

    @Test func unknownDerivedKey() {
        expect(
            Self.head + "derived:\n  - name: s\n    form: /comodule/*/speed\n", .unknownKey,
            "p.yaml:9:5: unknown key 'form' in a derived stream (expected one of: name, unit, record, from, merge, combineLatest, value, operators)"
        )
    }

    @Test func derivedWithoutSource() {
        expect(
            Self.head + "derived:\n  - name: s\n", .missingKey,
            "p.yaml:8:5: derived stream 's' needs exactly one of: from, merge, combineLatest")
    }

    @Test func durationWithoutUnit() {
        expect(
            Self.head + "derived:\n  - name: s\n    from: /comodule/*/speed\n    operators: [debounce: 500]\n",
            .wrongType,
            "p.yaml:10:27: debounce interval: '500' needs a unit (ns, us, ms, s, m or h), e.g. 500ms or 500s")
    }

    @Test func negativeDuration() {
        expect(
            Self.head + "recording: {chunkAge: -1s}\n", .outOfRange,
            "p.yaml:7:23: chunkAge: -1s must be positive")
    }

    @Test func zstdLevelOutOfRange() {
        expect(
            Self.head + "recording:\n  zstdLevel: 23\n", .outOfRange,
            "p.yaml:8:14: zstdLevel 23 is out of range (expected 1...22)")
    }

    @Test func segmentSizeTooSmall() {
        expect(
            Self.head + "recording:\n  segmentSize: 1KiB\n", .outOfRange,
            "p.yaml:8:16: segment size 1024 bytes is below the 64 KiB minimum")
    }

    @Test func sizeWithUnknownUnit() {
        expect(
            Self.head + "recording:\n  chunkSize: 1 MB/s\n", .wrongType,
            "p.yaml:8:14: chunkSize: '1 MB/s' is not a size (e.g. 65536, 64KiB, 256MiB or 1GiB)")
    }

    @Test func filterBoundsReversed() {
        expect(
            Self.head
                + "derived:\n  - name: s\n    from: /comodule/*/speed\n    operators: [filter: {min: 5, max: 1}]\n",
            .outOfRange, "p.yaml:10:39: filter max 1.0 is below min 5.0")
    }

    @Test func unknownUnit() {
        expect(
            Self.head
                + "derived:\n  - name: s\n    from: /comodule/*/speed\n    operators:\n      - map: {from: knots, to: meter_per_second}\n",
            .invalidValue,
            "p.yaml:11:21: unknown unit 'knots' (expected one of: \(UnitConversion.unitNames.joined(separator: ", ")))")
    }

    @Test func incompatibleUnits() {
        expect(
            Self.head
                + "derived:\n  - name: s\n    from: /comodule/*/speed\n    operators:\n      - map: {from: celsius, to: meter}\n",
            .invalidValue, "p.yaml:11:34: cannot convert celsius (temperature) to meter (length)")
    }

    @Test func topicOfAFamilyNotDeclared() {
        expect(
            Self.head + "derived:\n  - name: s\n    from: /jacquard/*/gesture\n", .unresolvedTopic,
            "p.yaml:9:11: topic pattern '/jacquard/*/gesture' matches no declared device's family (declared: diot, comodule)"
        )
    }

    @Test func topicNoDeviceProduces() {
        let error = error(Self.head + "record: [/comodule/*/sped]\n")
        #expect(error?.code == .unresolvedTopic)
        #expect(
            error?.description.hasPrefix(
                "p.yaml:7:10: topic pattern '/comodule/*/sped' matches no stream the declared devices produce (comodule streams: speed, state_of_charge"
            )
                == true, "\(String(describing: error))")
    }

    @Test func topicWithoutLeadingSlash() {
        expect(
            Self.head + "record: [diot/*/acc_x]\n", .invalidValue,
            "p.yaml:7:10: topic pattern 'diot/*/acc_x' must start with '/' (expected /<family>/<device>/<stream>, e.g. /diot/*/acc_x)"
        )
    }

    @Test func unknownDerivedReference() {
        expect(
            Self.head + "derived:\n  - name: s\n    from: /derived/nope\n", .unresolvedTopic,
            "p.yaml:9:11: /derived/nope names no derived stream (expected one of: s); derived inputs name one stream, without wildcards"
        )
    }

    @Test func cycle() {
        expect(
            Self.head
                + "derived:\n  - name: a\n    from: /derived/b\n  - name: b\n    merge: [/derived/a, /comodule/*/speed]\n",
            .cycle, "p.yaml:11:13: derived streams form a cycle: a → b → a")
    }

    /// A derived stream's topic, `/derived/<name>`, must be a ROS 2 topic name.
    @Test func derivedNamesAreROS2NameParts() {
        for name in ["speed-alert", "2fast", "a__b", "caf\u{E9}"] {
            expect(
                Self.head + "derived:\n  - name: \(name)\n    from: /comodule/*/speed\n", .invalidValue,
                "p.yaml:8:11: derived stream name '\(name)' must use only letters, digits and single '_', "
                    + "and start with a letter or '_' (its topic is a ROS 2 topic name)")
        }
        #expect(throws: Never.self) {
            try Pipeline(
                yaml: Self.head + "derived:\n  - name: _speed_2\n    from: /comodule/*/speed\n", file: "p.yaml")
        }
    }

    /// A simulated device's level in a pattern is its topic part (the ROS 2
    /// rule), not the identifier: `SCOOT-…` is recorded as `SCOOT_…`.
    @Test func aSimulatedDeviceLevelMatchesItsTopicPart() throws {
        let identifier = try #require(FamilyRegistry.builtIn.simulator(of: .comodule, seed: 1)).identifier
        #expect(identifier.hasPrefix("SCOOT-"))
        let part = ROS2Name.deviceToken(identifier)
        let pipeline = try Pipeline(yaml: Self.head + "record: [/comodule/\(part)/speed]\n", file: "p.yaml")
        #expect(pipeline.records(topic: "/comodule/\(part)/speed"))
        #expect(error(Self.head + "record: [/comodule/\(identifier)/speed]\n")?.code == .unresolvedTopic)
    }

    @Test func duplicateDerivedName() {
        expect(
            Self.head
                + "derived:\n  - name: a\n    from: /comodule/*/speed\n  - name: a\n    from: /comodule/*/odometer\n",
            .duplicate, "p.yaml:10:11: duplicate derived stream name 'a' (first declared at line 8)")
    }

    @Test func combineLatestNeedsValue() {
        expect(
            Self.head + "derived:\n  - name: m\n    combineLatest: {x: /diot/*/acc_x, y: /diot/*/acc_y}\n",
            .missingKey,
            "p.yaml:8:5: derived stream 'm' needs 'value' (an expression over its inputs, e.g. sqrt(x^2 + y^2 + z^2))")
    }

    @Test func expressionWithUnknownInput() {
        expect(
            Self.head
                + "derived:\n  - name: m\n    combineLatest: {x: /diot/*/acc_x, y: /diot/*/acc_y}\n    value: sqrt(x^2 + z^2)\n",
            .invalidValue, "p.yaml:10:23: in value: unknown input 'z' (expected one of: x, y)")
    }

    @Test func expressionWithUnknownFunction() {
        expect(
            Self.head
                + "derived:\n  - name: m\n    combineLatest: {x: /diot/*/acc_x, y: /diot/*/acc_y}\n    value: 'cbrt(x) + y'\n",
            .invalidValue,
            "p.yaml:10:13: in value: unknown function 'cbrt' (expected one of: abs, atan2, hypot, max, min, sqrt)")
    }

    @Test func operatorWithoutParameter() {
        expect(
            Self.head + "derived:\n  - name: s\n    from: /comodule/*/speed\n    operators:\n      - prefix\n",
            .missingKey, "p.yaml:11:9: prefix needs a count, e.g. 100")
    }

    @Test func prefixNegative() {
        expect(
            Self.head + "derived:\n  - name: s\n    from: /comodule/*/speed\n    operators:\n      - prefix: -1\n",
            .outOfRange, "p.yaml:11:17: prefix count -1 is out of range (expected 0...2147483647)")
    }
}
