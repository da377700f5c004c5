#ifndef REACTORHUB_CLIBWEBSOCKETS_SHIM_H
#define REACTORHUB_CLIBWEBSOCKETS_SHIM_H

// libwebsockets 4.1 as Debian builds it. Macros and multi-bit option values do not
// import into Swift, so the few that ReactorHub needs are exposed here as static inline
// functions with the `rh_lws_` prefix, with the one OpenSSL call made on the SSL_CTX lws
// hands to its callback. Nothing else belongs in this file. Its one user is
// ReactorHubLibWebSockets, the Swift wrapper the server and the client are written on.

#include <libwebsockets.h>

/// Has a server vhost's OpenSSL context (the `user` of
/// LWS_CALLBACK_OPENSSL_LOAD_EXTRA_SERVER_VERIFY_CERTS) issue no TLS 1.3 session tickets:
/// lws 4.1.6 on libuv left one TLS 1.3 connection in 500 to 15,000 whose server sent its
/// tickets unserved, its request read and never answered until lws' timeout; with no
/// tickets none was left in 30,000 (docs/security.md "TLS"). 1 when it was set.
static inline int rh_lws_tls_server_issue_no_tickets(void *ssl_context) {
    return SSL_CTX_set_num_tickets((SSL_CTX *)ssl_context, 0);
}

/// Bytes that must be writable in front of every payload handed to lws_write.
static inline size_t rh_lws_pre(void) { return LWS_PRE; }

/// Server options ReactorHub sets on its context.
static inline uint64_t rh_lws_option_validate_utf8(void) { return LWS_SERVER_OPTION_VALIDATE_UTF8; }
static inline uint64_t rh_lws_option_disable_ipv6(void) { return LWS_SERVER_OPTION_DISABLE_IPV6; }
static inline uint64_t rh_lws_option_ssl_global_init(void) { return LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT; }
static inline uint64_t rh_lws_option_security_headers(void) {
    return LWS_SERVER_OPTION_HTTP_HEADERS_SECURITY_BEST_PRACTICES_ENFORCE;
}

/// `LWS_SERVER_OPTION_LIBUV`: the context runs on libuv, through lws' evlib_uv plugin
/// (Debian's libwebsockets-evlib-uv), on the loop given in `foreign_loops`.
static inline uint64_t rh_lws_option_libuv(void) { return LWS_SERVER_OPTION_LIBUV; }

/// The directory lws loads its event library plugins from (`LWS_INSTALL_LIBDIR`).
static inline const char *rh_lws_install_libdir(void) { return LWS_INSTALL_LIBDIR; }

/// Log level bits for lws_set_log_level.
static inline int rh_lws_log_err(void) { return LLL_ERR; }
static inline int rh_lws_log_warn(void) { return LLL_WARN; }
static inline int rh_lws_log_notice(void) { return LLL_NOTICE; }

/// The header indexes ReactorHub reads (enum values differ between lws builds, so they
/// are read through the compiled header rather than hard-coded in Swift).
static inline int rh_lws_token_get_uri(void) { return WSI_TOKEN_GET_URI; }
static inline int rh_lws_token_head_uri(void) { return WSI_TOKEN_HEAD_URI; }
static inline int rh_lws_token_origin(void) { return WSI_TOKEN_ORIGIN; }
static inline int rh_lws_token_protocol(void) { return WSI_TOKEN_PROTOCOL; }
static inline int rh_lws_token_host(void) { return WSI_TOKEN_HOST; }
static inline int rh_lws_token_content_length(void) { return WSI_TOKEN_HTTP_CONTENT_LENGTH; }
static inline int rh_lws_token_transfer_encoding(void) { return WSI_TOKEN_HTTP_TRANSFER_ENCODING; }
static inline int rh_lws_token_authorization(void) { return WSI_TOKEN_HTTP_AUTHORIZATION; }
static inline int rh_lws_token_post_uri(void) { return WSI_TOKEN_POST_URI; }
static inline int rh_lws_token_put_uri(void) { return WSI_TOKEN_PUT_URI; }
static inline int rh_lws_token_delete_uri(void) { return WSI_TOKEN_DELETE_URI; }
static inline int rh_lws_token_options_uri(void) { return WSI_TOKEN_OPTIONS_URI; }
static inline int rh_lws_token_uri_args(void) { return WSI_TOKEN_HTTP_URI_ARGS; }
static inline int rh_lws_token_patch_uri(void) { return WSI_TOKEN_PATCH_URI; }
static inline int rh_lws_token_accept(void) { return WSI_TOKEN_HTTP_ACCEPT; }
static inline int rh_lws_token_content_type(void) { return WSI_TOKEN_HTTP_CONTENT_TYPE; }
static inline int rh_lws_token_if_none_match(void) { return WSI_TOKEN_HTTP_IF_NONE_MATCH; }

/// Copies fragment `index` of header `token` (the URI's arguments are one fragment each).
static inline int rh_lws_hdr_copy_fragment(struct lws *wsi, char *dest, int len, int token, int index) {
    return lws_hdr_copy_fragment(wsi, dest, len, (enum lws_token_indexes)token, index);
}
static inline int rh_lws_token_connection(void) { return WSI_TOKEN_CONNECTION; }
static inline int rh_lws_token_upgrade(void) { return WSI_TOKEN_UPGRADE; }
static inline int rh_lws_token_key(void) { return WSI_TOKEN_KEY; }
static inline int rh_lws_token_version(void) { return WSI_TOKEN_VERSION; }
static inline int rh_lws_token_extensions(void) { return WSI_TOKEN_EXTENSIONS; }

/// Copies header `token` into `dest`; returns its length or a negative value.
static inline int rh_lws_hdr_copy(struct lws *wsi, char *dest, int len, int token) {
    return lws_hdr_copy(wsi, dest, len, (enum lws_token_indexes)token);
}

/// Length of header `token`, 0 when absent.
static inline int rh_lws_hdr_total_length(struct lws *wsi, int token) {
    return lws_hdr_total_length(wsi, (enum lws_token_indexes)token);
}

/// Sends a text frame; `buf` must have rh_lws_pre() writable bytes in front of it.
static inline int rh_lws_write_text(struct lws *wsi, unsigned char *buf, size_t len) {
    return lws_write(wsi, buf, len, LWS_WRITE_TEXT);
}

/// Sends a binary frame; `buf` must have rh_lws_pre() writable bytes in front of it.
static inline int rh_lws_write_binary(struct lws *wsi, unsigned char *buf, size_t len) {
    return lws_write(wsi, buf, len, LWS_WRITE_BINARY);
}

/// Sends a ping; `buf` must have rh_lws_pre() writable bytes in front of it.
static inline int rh_lws_write_ping(struct lws *wsi, unsigned char *buf, size_t len) {
    return lws_write(wsi, buf, len, LWS_WRITE_PING);
}

/// Sends a pong; `buf` must have rh_lws_pre() writable bytes in front of it.
static inline int rh_lws_write_pong(struct lws *wsi, unsigned char *buf, size_t len) {
    return lws_write(wsi, buf, len, LWS_WRITE_PONG);
}

/// Sends bytes that are already complete WebSocket frames, as they are: lws_write's raw
/// mode (LWS_WRITE_RAW) skips framing and extensions on a ws connection and, like every
/// write, keeps what the socket does not take on the connection's buflist. `buf` must
/// have rh_lws_pre() writable bytes in front of it.
static inline int rh_lws_write_frames(struct lws *wsi, unsigned char *buf, size_t len) {
    return lws_write(wsi, buf, len, LWS_WRITE_RAW);
}

/// Sends HTTP/1 bytes (headers with the body appended, as lws_return_http_status does).
static inline int rh_lws_write_http(struct lws *wsi, unsigned char *buf, size_t len) {
    return lws_write(wsi, buf, len, LWS_WRITE_HTTP);
}

/// Sets the close code and reason sent when the callback next returns -1.
static inline void rh_lws_close_reason(struct lws *wsi, int code, const unsigned char *reason, size_t len) {
    lws_close_reason(wsi, (enum lws_close_status)code, (unsigned char *)reason, len);
}

/// Client side (WebSocketClient): the context listens nowhere (and initialises OpenSSL for
/// wss:// with rh_lws_option_ssl_global_init, above).
static inline int rh_lws_context_port_no_listen(void) { return CONTEXT_PORT_NO_LISTEN; }
// A server vhost that listens nowhere and serves the sockets given to it (lws_adopt_socket_vhost).
static inline int rh_lws_context_port_no_listen_server(void) { return CONTEXT_PORT_NO_LISTEN_SERVER; }

/// `ssl_connection` flags of a client connection: TLS for wss://, and with `insecure` any
/// certificate (self-signed, expired, another host name) is accepted.
static inline int rh_lws_client_ssl_flags(int secure, int insecure) {
    if (!secure) return 0;
    int flags = LCCSCF_USE_SSL;
    if (insecure) flags |= LCCSCF_ALLOW_SELFSIGNED | LCCSCF_SKIP_SERVER_CERT_HOSTNAME_CHECK | LCCSCF_ALLOW_EXPIRED;
    return flags;
}

/// Makes lws drop a connection (one still connecting included) on its next service pass.
static inline void rh_lws_kill_async(struct lws *wsi) {
    lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
}

/// Starts lws' close of a connection at once (`LWS_TO_KILL_SYNC`: lws_close_free_wsi), as
/// returning -1 from its callback would; with a close reason set, lws sends the close frame
/// at the next writable event and waits for the peer's.
static inline void rh_lws_close_now(struct lws *wsi) {
    lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_SYNC);
}

/// Appends `name: value` to a client handshake; `name` ends with ':'. Nonzero when no room is left.
static inline int rh_lws_append_header(struct lws *wsi, const char *name, const char *value, int length,
                                       unsigned char **position, unsigned char *end) {
    return lws_add_http_header_by_name(wsi, (const unsigned char *)name, (const unsigned char *)value,
                                       length, position, end);
}

#endif
