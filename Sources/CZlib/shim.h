#ifndef CZLIB_SHIM_H
#define CZLIB_SHIM_H
// Debian's zlib1g-dev, used only for crc32(): MCAP's CRC is zlib's CRC-32.
#include <zlib.h>
#endif
