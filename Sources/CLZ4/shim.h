#ifndef CLZ4_SHIM_H
#define CLZ4_SHIM_H
// Debian's liblz4-dev: the LZ4 frame format (lz4frame.h), which MCAP's "lz4"
// chunk compression means. Its stable API (LZ4F_compressFrame, LZ4F_decompress,
// LZ4F_resetDecompressionContext) is all we use; Debian 12 ships 1.9.4.
#include <lz4frame.h>
#endif
