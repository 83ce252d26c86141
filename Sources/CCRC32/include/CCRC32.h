#ifndef TLM_CCRC32_H
#define TLM_CCRC32_H

#include <stddef.h>
#include <stdint.h>

/// Folds the leading 16-byte blocks of `data` (at least 64 bytes, else
/// none) into one 16-byte block with carry-less multiplication (PCLMULQDQ),
/// for the CRC-32 of MCAP and zlib (IEEE polynomial, reflected).
///
/// `crc_register` is the CRC's register before `data` (zlib's running value,
/// inverted). The CRC register after the folded bytes is the register of
/// `block` processed from a zero register; the caller finishes with zlib:
/// `crc32(0xFFFFFFFF, block, 16)` is zlib's value after the folded bytes.
///
/// Returns how many bytes were folded (a multiple of 16), 0 when the CPU
/// has no PCLMULQDQ, the platform is not x86-64, or `length` is below 64.
size_t tlm_crc32_fold(uint32_t crc_register, const uint8_t *data, size_t length, uint8_t block[16]);

#endif
