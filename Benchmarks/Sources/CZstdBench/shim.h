#ifndef CZSTD_BENCH_SHIM_H
#define CZSTD_BENCH_SHIM_H
// zstd for the "compression alone" reference of the recording benchmarks
// (the main package's CZstd is not a product other packages can import).
#include <zstd.h>
#endif
