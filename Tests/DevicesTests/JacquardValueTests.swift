import Devices
import Foundation
import Testing

private func json(_ value: some Encodable) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return String(decoding: try encoder.encode(value), as: UTF8.self)
}

@Suite struct JacquardValueTests {
    @Test func jsonUsesTheSpecFieldNames() throws {
        #expect(
            try json(JacquardValue.batteryStatus(JacquardBatteryStatus(batteryLevel: 50, chargingStatus: .notCharging)))
                == #"{"batteryStatus":{"battery_level":50,"charging_status":"notCharging"}}"#
        )
        #expect(
            try json(
                JacquardValue.gesture(JacquardGestureEvent(gesture: .doubleTap, componentID: 1, timestampTicks: 9)))
                == #"{"gesture":{"component_id":1,"event":"doubleTap","timestamp_ticks":9}}"#
        )
        #expect(try json(JacquardGesture.unknown(42)) == "42")
        #expect(
            try json(JacquardAttached(attachState: true, vendorID: 1, productID: 2, componentID: 3))
                == #"{"attach_state":true,"component_id":3,"product_id":2,"vendor_id":1}"#
        )
        #expect(
            try json(JacquardErrorNotification(device: 1, subsystem: 2, errorCode: 3))
                == #"{"device":1,"errorcode":3,"subsystem":2}"#
        )
        #expect(try json(JacquardDisconnect(reconnect: true)) == #"{"reconnect":true}"#)
        #expect(
            try json(
                JacquardIMUSample(
                    sensorID: 0, accelX: -139, accelY: 30, accelZ: 2123, gyroX: -21, gyroY: 1, gyroZ: 0,
                    timestampTicks: 3_343_193))
                == #"{"accel_x":-139,"accel_y":30,"accel_z":2123,"gyro_x":-21,"gyro_y":1,"gyro_z":0,"#
                + #""sensor_id":0,"timestamp_ticks":3343193}"#
        )
        #expect(
            try json(JacquardResponse(id: 4, status: .unknown(6)))
                == #"{"component_id":0,"id":4,"status":6}"#
        )
        #expect(
            try json(JacquardTouchFrame(sequence: 1, proximity: 2, lines: Array(0..<12)))
                == #"{"component_id":0,"lines":[0,1,2,3,4,5,6,7,8,9,10,11],"#
                + #""proximity":2,"sequence":1,"timestamp_ticks":0}"#
        )
        #expect(try json(JacquardDecodeError.Code.lengthMismatch) == #""lengthMismatch""#)
    }

    @Test func simulatedValuesSurviveJSON() throws {
        var simulator = JacquardSimulator(seed: 77, configuration: .stress)
        var seen = Set<String>()
        for _ in 0..<3_000 {
            for value in simulator.next().values {
                let data = try JSONEncoder().encode(value)
                #expect(try JSONDecoder().decode(JacquardValue.self, from: data) == value)
                seen.insert(String(try json(value).prefix(8)))
            }
        }
        #expect(seen.count >= 6)
        let statuses: [JacquardStatus] = JacquardStatus.known + [.unknown(6), .unknown(-5)]
        for status in statuses {
            #expect(try JSONDecoder().decode(JacquardStatus.self, from: JSONEncoder().encode(status)) == status)
        }
        for domain in JacquardDomain.known + [.unknown(3)] {
            #expect(try JSONDecoder().decode(JacquardDomain.self, from: JSONEncoder().encode(domain)) == domain)
        }
        for gesture in JacquardGesture.known + [.unknown(99)] {
            #expect(try JSONDecoder().decode(JacquardGesture.self, from: JSONEncoder().encode(gesture)) == gesture)
        }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(JacquardGesture.self, from: Data(#""wave""#.utf8))
        }
    }
}
