// libssl for reactorhub-bench's wss:// client (only the load generator links it; the daemon's
// TLS is libwebsockets'). Macros become static inline functions.
#ifndef REACTORHUB_BENCH_SSL_SHIM_H
#define REACTORHUB_BENCH_SSL_SHIM_H

#include <openssl/err.h>
#include <openssl/ssl.h>

/// A client context that does not verify the server's certificate: the benchmark talks to
/// its own daemon on loopback with a self-signed certificate.
static inline SSL_CTX *bench_ssl_client_context(void) {
    SSL_CTX *context = SSL_CTX_new(TLS_client_method());
    if (context == NULL) return NULL;
    SSL_CTX_set_verify(context, SSL_VERIFY_NONE, NULL);
    SSL_CTX_set_mode(context, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    return context;
}

static inline int bench_ssl_want_read(void) { return SSL_ERROR_WANT_READ; }
static inline int bench_ssl_want_write(void) { return SSL_ERROR_WANT_WRITE; }
static inline int bench_ssl_zero_return(void) { return SSL_ERROR_ZERO_RETURN; }

/// The first queued OpenSSL error as text, for a failure message.
static inline void bench_ssl_error_text(char *buffer, size_t size) {
    unsigned long code = ERR_get_error();
    if (code == 0) { buffer[0] = 0; return; }
    ERR_error_string_n(code, buffer, size);
    ERR_clear_error();
}

#endif
