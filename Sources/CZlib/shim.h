#ifndef REACTORHUB_CZLIB_SHIM_H
#define REACTORHUB_CZLIB_SHIM_H

// zlib as Debian ships it (zlib1g-dev), for ReactorHubDeflate only: raw DEFLATE streams
// for permessage-deflate (RFC 7692). deflateInit2 and inflateInit2 are macros that pass
// zlib's version and the stream's size; they are wrapped here as static inline functions
// with the rh_zlib_ prefix.

#include <zlib.h>

/// A raw (headerless) DEFLATE compressor: `window_bits` 9 to 15, `mem_level` 1 to 9.
static inline int rh_zlib_deflate_init(z_streamp stream, int level, int window_bits, int mem_level) {
    return deflateInit2(stream, level, Z_DEFLATED, -window_bits, mem_level, Z_DEFAULT_STRATEGY);
}

/// A raw (headerless) DEFLATE decompressor for windows up to `window_bits` (8 to 15).
static inline int rh_zlib_inflate_init(z_streamp stream, int window_bits) {
    return inflateInit2(stream, -window_bits);
}

#endif
