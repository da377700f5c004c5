#ifndef REACTORHUB_CLIBUV_SHIM_H
#define REACTORHUB_CLIBUV_SHIM_H

// libuv 1.x as Debian ships it (libuv1-dev), for the one loop each server context of
// libwebsockets runs on (its `foreign_loops`). Its one user is ReactorHubLibWebSockets.
// Swift sees the loop and its handles as raw pointers only: libwebsockets.h includes
// <uv.h> as well (Debian builds lws with LWS_WITH_LIBUV), and the wrapper never names a
// libuv type, so the two modules' copies of those declarations never meet in Swift.

#include <stdlib.h>
#include <uv.h>

/// A new loop (`uv_loop_init`), NULL on failure. Freed by rh_uv_loop_close.
static inline void *rh_uv_loop_new(void) {
    uv_loop_t *loop = (uv_loop_t *)malloc(sizeof(uv_loop_t));
    if (!loop) return NULL;
    if (uv_loop_init(loop) != 0) {
        free(loop);
        return NULL;
    }
    return loop;
}

/// Closes the loop (`uv_loop_close`) and frees it; nonzero (and nothing freed) while it
/// still holds handles.
static inline int rh_uv_loop_close(void *loop) {
    int result = uv_loop_close((uv_loop_t *)loop);
    if (result == 0) free(loop);
    return result;
}

/// Runs the loop until uv_stop, or until nothing is left to wait for (`UV_RUN_DEFAULT`).
static inline int rh_uv_run(void *loop) { return uv_run((uv_loop_t *)loop, UV_RUN_DEFAULT); }

/// One pass that does not wait (`UV_RUN_NOWAIT`); nonzero while handles are left.
static inline int rh_uv_run_nowait(void *loop) { return uv_run((uv_loop_t *)loop, UV_RUN_NOWAIT); }

/// Makes the running uv_run return after its current pass (`uv_stop`). Loop thread only.
static inline void rh_uv_stop(void *loop) { uv_stop((uv_loop_t *)loop); }

static inline void rh_uv_count_handle(uv_handle_t *handle, void *count) {
    (void)handle;
    *(int *)count += 1;
}

/// The handles the loop holds, closing ones included (`uv_walk`).
static inline int rh_uv_handle_count(void *loop) {
    int count = 0;
    uv_walk((uv_loop_t *)loop, rh_uv_count_handle, &count);
    return count;
}

/// A check handle (run after each pass's I/O callbacks) that calls `hook(context)`.
typedef void (*rh_uv_hook)(void *context);
struct rh_uv_check {
    uv_check_t handle;
    rh_uv_hook hook;
    void *context;
};

static inline void rh_uv_check_fire(uv_check_t *handle) {
    struct rh_uv_check *check = (struct rh_uv_check *)handle;
    check->hook(check->context);
}

/// Starts a check handle on `loop` calling `hook(context)` after each pass; NULL on failure.
/// The handle does not keep the loop running (`uv_unref`).
static inline void *rh_uv_check_start(void *loop, rh_uv_hook hook, void *context) {
    struct rh_uv_check *check = (struct rh_uv_check *)calloc(1, sizeof(struct rh_uv_check));
    if (!check) return NULL;
    check->hook = hook;
    check->context = context;
    uv_check_init((uv_loop_t *)loop, &check->handle);
    uv_check_start(&check->handle, rh_uv_check_fire);
    uv_unref((uv_handle_t *)&check->handle);
    return check;
}

static inline void rh_uv_free_handle(uv_handle_t *handle) { free(handle); }

/// Stops and closes a check handle from rh_uv_check_start; freed by the loop's next pass.
static inline void rh_uv_check_close(void *check) {
    uv_check_stop(&((struct rh_uv_check *)check)->handle);
    uv_close((uv_handle_t *)&((struct rh_uv_check *)check)->handle, rh_uv_free_handle);
}

#endif
