// Preloaded into reactorhub-cli by test_cli_client.py. Every libwebsockets context the
// process destroys is destroyed 200 ms late, and an exit handler reports a context still
// alive when the process exits. That is the order that crashed the CLI: it exited while
// its service thread was still in lws_context_destroy, and OpenSSL's own exit handler had
// already freed what SSL_CTX_free then used.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct lws_context;
struct lws_context_creation_info;

static atomic_int created;
static atomic_int destroyed;

struct lws_context *lws_create_context(const struct lws_context_creation_info *info) {
    struct lws_context *(*real)(const struct lws_context_creation_info *) =
        (struct lws_context *(*)(const struct lws_context_creation_info *))dlsym(RTLD_NEXT, "lws_create_context");
    struct lws_context *context = real(info);
    if (context) atomic_fetch_add(&created, 1);
    return context;
}

void lws_context_destroy(struct lws_context *context) {
    void (*real)(struct lws_context *) = (void (*)(struct lws_context *))dlsym(RTLD_NEXT, "lws_context_destroy");
    usleep(200 * 1000);
    real(context);
    if (context) atomic_fetch_add(&destroyed, 1);
}

static void check(void) {
    int alive = atomic_load(&created) - atomic_load(&destroyed);
    if (alive != 0) {
        fprintf(stderr, "late_context_destroy: %d libwebsockets context(s) still alive at exit\n", alive);
        fflush(stderr);
        _exit(70);
    }
}

__attribute__((constructor)) static void install(void) { atexit(check); }
