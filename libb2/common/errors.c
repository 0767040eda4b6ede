/* Error strings and version (b2_common.h). */
#include "b2_common.h"

const char *b2_strerror(int code)
{
    switch (code) {
    case B2_OK: return "success";
    case B2_ERR_INVALID_PARAM: return "invalid parameter";
    case B2_ERR_TRUNCATED: return "input is truncated";
    case B2_ERR_INVALID_HEADER: return "invalid or corrupted header";
    case B2_ERR_CORRUPT: return "corrupted compressed data";
    case B2_ERR_UNSUPPORTED: return "unsupported format feature";
    case B2_ERR_NOMEM: return "out of memory";
    case B2_ERR_DST_TOO_SMALL: return "destination buffer too small";
    case B2_ERR_CODEC: return "codec library error";
    case B2_ERR_FILTER: return "filter cannot be applied";
    case B2_ERR_IO: return "I/O error";
    case B2_ERR_THREAD: return "could not start a thread";
    case B2_ERR_NOT_FOUND: return "not found";
    case B2_ERR_RANGE: return "out of range";
    case B2_ERR_EXISTS: return "already exists";
    case B2_ERR_FORMAT: return "unrecognised format";
    case B2_ERR_DOES_NOT_FIT: return "data does not fit the format limits";
    default: return code < 0 ? "unknown error" : "not an error code";
    }
}

const char *b2_version(void) { return B2_VERSION_STRING; }
