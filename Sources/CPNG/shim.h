#ifndef CPNG_SHIM_H
#define CPNG_SHIM_H
// Debian's libpng-dev (libpng 1.6): the simplified write API
// (png_image_write_to_memory) encodes an RGBA buffer in one call.
#include <png.h>
// PNG_FORMAT_RGBA is a macro of macros, which Swift does not import.
static const unsigned int cpng_format_rgba = PNG_FORMAT_RGBA;
#endif
