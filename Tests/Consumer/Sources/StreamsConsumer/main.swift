import Streams

// Doubles what a subject sends and prints it: `check.sh` expects "[2, 4, 6]".
let readings = PassthroughSubject<Int, Never>()
let doubled = readings.subscribe().map { $0 * 2 }
let consumer = Task {
    var values: [Int] = []
    for await value in doubled { values.append(value) }
    return values
}
for reading in 1...3 { readings.send(reading) }
readings.finish()
print(await consumer.value)
