// CRC-32 (IEEE, reflected) folding with carry-less multiplication, after
// Intel's "Fast CRC Computation for Generic Polynomials Using PCLMULQDQ
// Instruction" (Gopal et al., 2009). Each 16-byte block is multiplied
// forward by x^(distance) mod P and XORed onto the block that distance
// ahead, which keeps the message's remainder mod P; the last 16 bytes are
// left for a table-driven CRC (zlib) to finish.
#include "CCRC32.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>

// x^(512±32) and x^(128±32) mod P, bit-reflected and shifted left by one
// (the reflected product's one-bit offset): folding by four and by one blocks.
#define FOLD_BY_4_LOW 0x154442bd4ULL
#define FOLD_BY_4_HIGH 0x1c6e41596ULL
#define FOLD_BY_1_LOW 0x1751997d0ULL
#define FOLD_BY_1_HIGH 0x0ccaa009eULL

// Whether the CPU has PCLMULQDQ: 0 not yet asked, 1 no, 2 yes. Asked once
// (CPUID is slow under a hypervisor); threads that race store the same value.
static int pclmul_state;

static int has_pclmul(void) {
    int state = __atomic_load_n(&pclmul_state, __ATOMIC_RELAXED);
    if (state == 0) {
        unsigned int eax, ebx, ecx, edx;
        state = __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_PCLMUL) != 0 ? 2 : 1;
        __atomic_store_n(&pclmul_state, state, __ATOMIC_RELAXED);
    }
    return state == 2;
}

__attribute__((target("pclmul,sse2"))) static inline __m128i fold(__m128i block, __m128i constants, __m128i next) {
    __m128i low = _mm_clmulepi64_si128(block, constants, 0x00);
    __m128i high = _mm_clmulepi64_si128(block, constants, 0x11);
    return _mm_xor_si128(_mm_xor_si128(low, high), next);
}

__attribute__((target("pclmul,sse2"))) static size_t fold_blocks(
    uint32_t crc_register, const uint8_t *data, size_t length, uint8_t block[16]) {
    const __m128i by4 = _mm_set_epi64x((long long)FOLD_BY_4_HIGH, (long long)FOLD_BY_4_LOW);
    const __m128i by1 = _mm_set_epi64x((long long)FOLD_BY_1_HIGH, (long long)FOLD_BY_1_LOW);
    __m128i x0 = _mm_xor_si128(_mm_loadu_si128((const __m128i *)data), _mm_cvtsi32_si128((int)crc_register));
    __m128i x1 = _mm_loadu_si128((const __m128i *)(data + 16));
    __m128i x2 = _mm_loadu_si128((const __m128i *)(data + 32));
    __m128i x3 = _mm_loadu_si128((const __m128i *)(data + 48));
    size_t position = 64;
    while (length - position >= 64) {
        x0 = fold(x0, by4, _mm_loadu_si128((const __m128i *)(data + position)));
        x1 = fold(x1, by4, _mm_loadu_si128((const __m128i *)(data + position + 16)));
        x2 = fold(x2, by4, _mm_loadu_si128((const __m128i *)(data + position + 32)));
        x3 = fold(x3, by4, _mm_loadu_si128((const __m128i *)(data + position + 48)));
        position += 64;
    }
    x0 = fold(x0, by1, x1);
    x0 = fold(x0, by1, x2);
    x0 = fold(x0, by1, x3);
    while (length - position >= 16) {
        x0 = fold(x0, by1, _mm_loadu_si128((const __m128i *)(data + position)));
        position += 16;
    }
    _mm_storeu_si128((__m128i *)block, x0);
    return position;
}

size_t tlm_crc32_fold(uint32_t crc_register, const uint8_t *data, size_t length, uint8_t block[16]) {
    if (length < 64 || !has_pclmul()) return 0;
    return fold_blocks(crc_register, data, length, block);
}

#else

size_t tlm_crc32_fold(uint32_t crc_register, const uint8_t *data, size_t length, uint8_t block[16]) {
    (void)crc_register;
    (void)data;
    (void)length;
    (void)block;
    return 0;
}

#endif
