#include "c_decoders.h"
#include <string.h>

// Reads an unsigned LEB128 varint of at most 10 bytes. Returns 0 on success.
static int read_varint(const uint8_t **cursor, const uint8_t *end, uint64_t *out) {
    uint64_t value = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        if (*cursor >= end) return -1;
        uint8_t byte = *(*cursor)++;
        value |= (uint64_t)(byte & 0x7F) << shift;
        if ((byte & 0x80) == 0) {
            *out = value;
            return 0;
        }
    }
    return -1;
}

// Skips a field's value by wire type. Returns 0 on success.
static int skip_field(const uint8_t **cursor, const uint8_t *end, uint32_t wire_type) {
    uint64_t length;
    switch (wire_type) {
    case 0: return read_varint(cursor, end, &length);
    case 1: if (end - *cursor < 8) return -1; *cursor += 8; return 0;
    case 5: if (end - *cursor < 4) return -1; *cursor += 4; return 0;
    case 2:
        if (read_varint(cursor, end, &length) || length > (uint64_t)(end - *cursor)) return -1;
        *cursor += length;
        return 0;
    default: return -1;
    }
}

// The event of an inference_data / DataChannel / Notification message, or
// -1 when there is none, -2 when malformed. `depth` walks: 0 Notification
// (field 917), 1 DataChannel (field 1), 2 inference_data (field 1, varint).
static long long find_event(const uint8_t *cursor, const uint8_t *end, int depth) {
    long long event = -1;
    while (cursor < end) {
        uint64_t tag;
        if (read_varint(&cursor, end, &tag)) return -2;
        uint32_t field = (uint32_t)(tag >> 3), wire_type = (uint32_t)(tag & 7);
        uint32_t wanted = depth == 0 ? 917 : 1;
        if (field == wanted && depth < 2 && wire_type == 2) {
            uint64_t length;
            if (read_varint(&cursor, end, &length) || length > (uint64_t)(end - cursor)) return -2;
            long long inner = find_event(cursor, cursor + length, depth + 1);
            if (inner == -2) return -2;
            if (inner >= 0) event = inner;
            cursor += length;
        } else if (field == 1 && depth == 2 && wire_type == 0) {
            uint64_t value;
            if (read_varint(&cursor, end, &value)) return -2;
            event = (long long)(int32_t)value;
        } else if (skip_field(&cursor, end, wire_type)) {
            return -2;
        }
    }
    return event;
}

// Feeds one fragment. Returns 1 with the message when complete, 0 when more
// fragments are needed, -1 when the fragment is malformed (message dropped).
static int reassemble(c_jacquard_reassembler *r, const uint8_t *bytes, size_t length, const uint8_t **message,
                      size_t *message_length) {
    if (length == 0) return -1;
    uint8_t header = bytes[0];
    int first = header & 0x80, last = header & 0x40, counter = header & 0x3F;
    const uint8_t *payload = bytes + 1, *end = bytes + length;
    if (first) {
        uint64_t total;
        if (counter != 0 || read_varint(&payload, end, &total) || total > 1024) {
            r->in_progress = 0;
            return -1;
        }
        size_t remaining = (size_t)(end - payload);
        if (last) { // a whole message in one fragment: parse in place
            r->in_progress = 0;
            if (remaining != total) return -1;
            *message = payload;
            *message_length = remaining;
            return 1;
        }
        r->expected = (size_t)total;
        r->length = 0;
        r->next_counter = 1;
        r->in_progress = 1;
    } else {
        if (!r->in_progress) return -1;
        if (counter != (r->next_counter & 0x3F)) {
            r->in_progress = 0;
            return -1;
        }
        r->next_counter++;
    }
    size_t remaining = (size_t)(end - payload);
    if (r->length + remaining > r->expected) {
        r->in_progress = 0;
        return -1;
    }
    memcpy(r->buffer + r->length, payload, remaining);
    r->length += remaining;
    if (!last) return 0;
    r->in_progress = 0;
    if (r->length != r->expected) return -1;
    *message = r->buffer;
    *message_length = r->length;
    return 1;
}

long long c_jacquard_decode_gestures_batch(c_jacquard_reassembler *reassembler, const uint8_t *data,
                                           const uint32_t *lengths, size_t count, size_t *gestures) {
    long long sum = 0;
    size_t found = 0;
    for (size_t i = 0; i < count; i++) {
        const uint8_t *message;
        size_t message_length;
        if (reassemble(reassembler, data, lengths[i], &message, &message_length) == 1) {
            long long event = find_event(message, message + message_length, 0);
            if (event >= 0) {
                sum += event;
                found++;
            }
        }
        data += lengths[i];
    }
    *gestures = found;
    return sum;
}
