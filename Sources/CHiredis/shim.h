#ifndef REACTORHUB_CHIREDIS_SHIM_H
#define REACTORHUB_CHIREDIS_SHIM_H

// hiredis 0.14 as Debian ships it (libhiredis-dev): the blocking API only (no RESP3, no
// redisConnectWithOptions in this version). Macros do not import into Swift, so the few
// that the Cluster module needs are exposed here as static inline functions with the
// `rh_redis_` prefix. Nothing else belongs in this file.

#include <hiredis/hiredis.h>

/// Return codes of the hiredis calls.
static inline int rh_redis_ok(void) { return REDIS_OK; }
static inline int rh_redis_err(void) { return REDIS_ERR; }

/// Values of redisContext.err.
static inline int rh_redis_err_io(void) { return REDIS_ERR_IO; }
static inline int rh_redis_err_eof(void) { return REDIS_ERR_EOF; }
static inline int rh_redis_err_protocol(void) { return REDIS_ERR_PROTOCOL; }
static inline int rh_redis_err_oom(void) { return REDIS_ERR_OOM; }

/// Values of redisReply.type.
static inline int rh_redis_reply_string(void) { return REDIS_REPLY_STRING; }
static inline int rh_redis_reply_array(void) { return REDIS_REPLY_ARRAY; }
static inline int rh_redis_reply_integer(void) { return REDIS_REPLY_INTEGER; }
static inline int rh_redis_reply_nil(void) { return REDIS_REPLY_NIL; }
static inline int rh_redis_reply_status(void) { return REDIS_REPLY_STATUS; }
static inline int rh_redis_reply_error(void) { return REDIS_REPLY_ERROR; }

#endif
