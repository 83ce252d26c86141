#include "c_decoders.h"
#include <string.h>

// 0 float, 1 int, 2 bool, 3 date, 255 unknown; index = feature code.
static const uint8_t diot_types[44] = {
    255, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 3, 3, 1, 0, 1, 3,
    0, 0, 0, 0, 0, 2, 1, 1, 2, 1, 2, 0, 0, 2, 0, 0, 2, 1, 0, 0, 2, 3,
};

static inline int diot_decode(const uint8_t *bytes, size_t length, uint8_t channel, c_diot_record *out,
                              size_t capacity) {
    if (length == 1 && bytes[0] == 0) return 0;
    if (length == 0 || length % 5 != 0) return -1;
    size_t count = length / 5;
    if (count > capacity) count = capacity;
    for (size_t i = 0; i < count; i++) {
        const uint8_t *record = bytes + i * 5;
        uint32_t raw = (uint32_t)record[1] | ((uint32_t)record[2] << 8) | ((uint32_t)record[3] << 16) |
                       ((uint32_t)record[4] << 24);
        uint8_t code = record[0];
        uint8_t type = code < 44 ? diot_types[code] : 255;
        double value;
        switch (type) {
        case 0: {
            float f;
            memcpy(&f, &raw, sizeof f);
            value = (double)f;
            break;
        }
        case 2: value = (raw & 0xFF) == 1 ? 1.0 : 0.0; break;
        default: value = (double)raw; break;
        }
        out[i].channel = channel;
        out[i].index = (uint8_t)i;
        out[i].feature_code = code;
        out[i].raw = raw;
        out[i].value = value;
    }
    return (int)count;
}

int c_diot_decode(const uint8_t *bytes, size_t length, uint8_t channel, c_diot_record *out, size_t capacity) {
    return diot_decode(bytes, length, channel, out, capacity);
}

double c_diot_decode_batch(const uint8_t *data, const uint32_t *lengths, const uint8_t *channels, size_t count,
                           size_t *values) {
    c_diot_record records[64];
    double sum = 0;
    size_t total = 0;
    for (size_t i = 0; i < count; i++) {
        int n = diot_decode(data, lengths[i], channels[i], records, 64);
        for (int j = 0; j < n; j++) sum += records[j].value;
        if (n > 0) total += (size_t)n;
        data += lengths[i];
    }
    *values = total;
    return sum;
}
