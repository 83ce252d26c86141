#ifndef CZSTD_SHIM_H
#define CZSTD_SHIM_H
// Debian's libzstd-dev. The advanced API (ZSTD_CCtx_setParameter, ZSTD_compress2)
// is stable since zstd 1.4.0; Debian 12 ships 1.5.4.
#include <zstd.h>
#endif
