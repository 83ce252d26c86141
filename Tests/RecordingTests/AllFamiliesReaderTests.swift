import DeviceRecording
import Devices
import Families
import Foundation
import Quantities
import ROS2
import TestSupport
import Testing

@testable import Recording

/// Every family's typed streams, read back by the independent Python reader
/// (CRCs on, `mcap-ros2-support` decoding CDR), equal the values our decoders
/// produced — field by field, with the schema's field names.
@Suite struct AllFamiliesReaderTests {
    /// The fields a value's message must decode to, by the schema's names.
    /// Written from the typed values independently of the CDR encoder.
    static func expectedFields(_ value: any RecordableValue) -> [String: Any] {
        switch value {
        case let value as JacquardValue:
            switch value {
            case .gesture(let g):
                [
                    "gesture_id": Int(g.gesture.id), "gesture": g.gesture.name ?? "",
                    "component_id": Int(g.componentID), "timestamp_ticks": Int(g.timestampTicks),
                ]
            case .touchFrame(let t):
                [
                    "sequence": Int(t.sequence), "proximity": Int(t.proximity), "lines": t.lines.map(Int.init),
                    "component_id": Int(t.componentID), "timestamp_ticks": Int(t.timestampTicks),
                ]
            case .imuSample(let s):
                [
                    "sensor_id": Int(s.sensorID), "accel_x": Int(s.accelX), "accel_y": Int(s.accelY),
                    "accel_z": Int(s.accelZ), "gyro_x": Int(s.gyroX), "gyro_y": Int(s.gyroY),
                    "gyro_z": Int(s.gyroZ), "timestamp_ticks": Int(s.timestampTicks),
                ]
            case .batteryStatus(let b):
                [
                    "battery_level": Int(b.batteryLevel), "charging_status": b.chargingStatus.description,
                    "charging_status_code": Int(b.chargingStatus.rawValue),
                ]
            case .attached(let a):
                [
                    "attach_state": a.attachState, "vendor_id": Int(a.vendorID),
                    "product_id": Int(a.productID), "component_id": Int(a.componentID),
                ]
            case .disconnect(let d): ["reconnect": d.reconnect]
            case .error(let e): ["device": Int(e.device), "subsystem": Int(e.subsystem), "errorcode": Int(e.errorCode)]
            case .response(let r):
                [
                    "id": Int(r.id), "status": r.status.description, "status_code": Int(r.status.rawValue),
                    "component_id": Int(r.componentID),
                ]
            case .notification(let n):
                [
                    "domain": n.domain.description, "domain_code": Int(n.domain.rawValue),
                    "opcode": Int(n.opcode), "component_id": Int(n.componentID),
                ]
            }
        case let frame as ComoduleFrame:
            switch (frame.kind, frame.value) {
            case (.value, .range(let number)?):
                [
                    "value": number, "index": Int(frame.index), "identifier": frame.identifier,
                    // The SDK's identifier is recorded as its UCUM code.
                    "unit": UnitCode.canonical(frame.unit),
                ]
            case (.value, .state(let index, let state)?):
                [
                    "state_index": index, "state": state, "index": Int(frame.index),
                    "identifier": frame.identifier,
                ]
            case (.value, .raw(let bytes)?):
                ["data": bytes.map(Int.init), "index": Int(frame.index), "identifier": frame.identifier]
            case (.value, nil): ["data": [Int](), "index": Int(frame.index), "identifier": frame.identifier]
            case (.writeAcknowledged, _): ["index": Int(frame.index), "identifier": frame.identifier]
            case (.error, _):
                ["error_code": Int(frame.errorCode ?? 0), "index": Int(frame.index), "identifier": frame.identifier]
            }
        case let value as FjordenValue:
            switch value {
            case .gripEvent(let g):
                ["code": Int(g.event.code), "event": g.event.description, "repeat_count": Int(g.repeatCount)]
            case .batteryLevel(let b): ["percent": Int(b.percent), "is_low": b.isLow]
            case .deviceInformation(let i): ["field": i.field.rawValue, "value": i.value]
            }
        case let message as ObviousMessage:
            switch message {
            case .featureStatus(let features):
                [
                    "feature_ids": features.map { Int($0.featureID) },
                    "enabled": features.map(\.enabled), "toggles": features.map(\.toggle.rawValue),
                ]
            case .firmwareVersion(let v): ["code": Int(v.code), "valid": v.isValid, "version": v.description]
            case .upgradeProgress(let p): ["percent": Int(p)]
            case .upgradeStatus(let s): ["code": Int(s.code), "status": s.rawValue]
            }
        default:
            [:]
        }
    }

    /// Records `count` notifications of a simulator through `decoder`, and
    /// returns the values the decoder produced, per topic, in order.
    static func record<D: PacketDecoder>(
        _ decoder: D, family: DeviceFamily, count: Int, into recorder: Recorder, start: UInt64,
        next: () -> (Duration, CharacteristicUUID, [UInt8])
    ) throws -> (expected: [String: [any RecordableValue]], notifications: Int) where D.Value: RecordableValue {
        let device = try DeviceStreamRecorder(
            recorder: recorder, decoder: decoder, identifier: family.rawValue.uppercased(),
            name: family.rawValue)
        var reference = decoder
        var expected: [String: [any RecordableValue]] = [:]
        for _ in 0..<count {
            let (offset, characteristic, bytes) = next()
            let time =
                start + UInt64(offset.components.seconds) * 1_000_000_000
                + UInt64(offset.components.attoseconds / 1_000_000_000)
            let notification = RawNotification(characteristic: characteristic, bytes: bytes, receiveTime: time)
            try device.record(notification)
            try? reference.decode(notification) { value in
                expected["/\(family.rawValue)/\(family.rawValue.uppercased())/\(value.streamSpec.name)", default: []]
                    .append(value)
            }
        }
        return (expected, count)
    }

    @Test func pythonReaderDecodesEveryFamilysTypedStreams() throws {
        var configuration = RecorderConfiguration()
        configuration.chunkSize = 32 << 10
        let directory = makeTemporaryDirectory() + "/rec"
        let start: UInt64 = 1_763_800_000_000_000_000
        let recorder = try Recorder(
            directory: directory, configuration: configuration,
            session: .init(name: "families", source: "simulate", seed: 5), startTime: start)
        var jacquard = JacquardSimulator(seed: 5, configuration: .stress)
        var comodule = ComoduleSimulator(seed: 5)
        var fjorden = FjordenSimulator(seed: 5)
        var obvious = ObviousSimulator(seed: 5)
        var expected: [String: [any RecordableValue]] = [:]
        for (part, _) in [
            try Self.record(JacquardDecoder(), family: .jacquard, count: 3000, into: recorder, start: start) {
                let n = jacquard.next()
                return (n.offset, n.characteristic, n.bytes)
            },
            try Self.record(ComoduleDecoder(), family: .comodule, count: 1500, into: recorder, start: start) {
                let n = comodule.next()
                return (n.offset, n.characteristic, n.bytes)
            },
            try Self.record(FjordenDecoder(), family: .fjorden, count: 1000, into: recorder, start: start) {
                let n = fjorden.next()
                return (n.offset, n.characteristic, n.bytes)
            },
            try Self.record(ObviousDecoder(), family: .obvious, count: 1000, into: recorder, start: start) {
                let n = obvious.next()
                return (n.offset, n.characteristic, n.bytes)
            },
        ] {
            expected.merge(part) { $0 + $1 }
        }
        try recorder.close()
        let info = try RecordingInfo.load(from: directory)
        #expect(info.lossCount > 0)  // the fault presets send malformed packets: each is a loss record

        let result = try readWithPython(info.segments.map { directory + "/" + $0.path })
        var decodedByTopic: [String: [[String: Any]]] = [:]
        for segment in result["segments"] as! [[String: Any]] {
            for message in segment["messages"] as! [[String: Any]] {
                decodedByTopic[message["topic"] as! String, default: []].append(message["fields"] as! [String: Any])
            }
        }
        // Every kind of value appears, for every family.
        let families = Set(expected.keys.map { $0.split(separator: "/")[0] })
        #expect(families == ["jacquard", "comodule", "fjorden", "obvious"])
        #expect(expected.count >= 15, "\(expected.keys.sorted())")
        var mismatches: [String] = []
        for (topic, values) in expected {
            let decoded = decodedByTopic[topic] ?? []
            if decoded.count != values.count {
                mismatches.append("\(topic): \(decoded.count) decoded, \(values.count) expected")
                continue
            }
            for (index, (fields, value)) in zip(decoded, values).enumerated() {
                for (name, want) in Self.expectedFields(value) where !Self.same(fields[name], want) {
                    mismatches.append("\(topic) #\(index) \(name): \(String(describing: fields[name])) != \(want)")
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) mismatches:\n\(mismatches.prefix(8).joined(separator: "\n"))")

        // Our own typed reading decodes the same fields from the schemas in the segments.
        let reader = try RecordingReader(directory: directory)
        var typedMismatches: [String] = []
        for (topic, values) in expected {
            let typed = try reader.typedMessages(topics: [topic])
            #expect(typed.count == values.count, "\(topic)")
            for (message, value) in zip(typed, values) {
                for (name, want) in Self.expectedFields(value) where !Self.same(message[name].map(Self.plain), want) {
                    typedMismatches.append("\(topic) \(name): \(String(describing: message[name])) != \(want)")
                }
            }
        }
        #expect(typedMismatches.isEmpty, "\(typedMismatches.prefix(8).joined(separator: "\n"))")
    }

    /// A decoded field in the shape the Python reader's JSON has (floats as text).
    static func plain(_ value: CDRValue) -> Any {
        switch value {
        case .bool(let flag): flag
        case .int(let number): Int(number)
        case .uint(let number): Int(number)
        case .double(let number): "\(number)"
        case .string(let text): text
        case .bytes(let bytes): bytes.map(Int.init)
        case .array(let items): items.map(plain)
        }
    }

    /// Compares a Python-decoded field with an expected value (floats arrive
    /// as text, exactly).
    static func same(_ decoded: Any?, _ expected: Any) -> Bool {
        switch expected {
        case let number as Double: (decoded as? String).flatMap(Double.init) == number
        case let number as Int: (decoded as? Int) == number
        case let flag as Bool: (decoded as? Bool) == flag
        case let text as String: (decoded as? String) == text
        case let list as [Int]: (decoded as? [Int]) == list
        case let list as [Bool]: (decoded as? [Bool]) == list
        case let list as [String]: (decoded as? [String]) == list
        default: false
        }
    }
}
