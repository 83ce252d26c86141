// Plain C decoders of the same wire formats as the Swift ones, as a speed
// reference for the benchmarks. Straightforward C compiled with -O2; they
// produce the same values as the Swift decoders (checked at benchmark setup).
#ifndef C_DECODERS_H
#define C_DECODERS_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint8_t channel;
    uint8_t index;
    uint8_t feature_code;
    uint32_t raw;
    double value; // numeric view: float widened, uint32, bool 0/1, date seconds; unknown codes: raw
} c_diot_record;

// Decodes one DIoT data-channel notification. Returns the number of records
// written to `out` (at most `capacity`), 0 for the "channel empty" byte 00,
// or -1 for a malformed length.
int c_diot_decode(const uint8_t *bytes, size_t length, uint8_t channel, c_diot_record *out, size_t capacity);

// Decodes `count` notifications laid out back to back in `data` (lengths in
// `lengths`, channels in `channels`) in one call, the strongest form of the C
// reference: no call per packet. Returns the sum of the values and stores
// their number in `values`; malformed packets are skipped.
double c_diot_decode_batch(const uint8_t *data, const uint32_t *lengths, const uint8_t *channels, size_t count,
                           size_t *values);

// Jacquard: per-characteristic fragment reassembly (FIRST/LAST/counter
// header, LEB128 length, 1024-byte limit) and a protobuf walk to the gesture
// event (Notification ext 917 -> DataChannel field 1 -> inference event).
typedef struct {
    uint8_t buffer[1024];
    size_t length;
    size_t expected;
    int next_counter;
    int in_progress;
} c_jacquard_reassembler;

// Decodes gesture notifications laid out back to back (lengths in
// `lengths`) through one reassembler. Returns the sum of the gesture ids and
// stores their number in `gestures`; malformed packets are skipped.
long long c_jacquard_decode_gestures_batch(c_jacquard_reassembler *reassembler, const uint8_t *data,
                                           const uint32_t *lengths, size_t count, size_t *gestures);

#endif
