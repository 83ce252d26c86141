#ifndef CISAL_SHIM_H
#define CISAL_SHIM_H
// Debian's libisal-dev (Intel's Intelligent Storage Acceleration Library),
// used only for crc32_gzip_refl(): the CRC-32 MCAP uses (zlib's, the IEEE
// polynomial reflected), with the carry-less multiplication instructions
// where the CPU has them and tables where it has not.
#include <isa-l/crc.h>
#endif
