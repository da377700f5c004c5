#ifndef REACTORHUB_CRECEIVETAP_H
#define REACTORHUB_CRECEIVETAP_H

// A tap on the recv(2) calls of one shared library (libwebsockets), so that Transport
// can check the raw bytes of a WebSocket stream before the library parses them.
//
// libwebsockets 4.1 has no hook between reading a socket and parsing its frames (its
// LWS_CALLBACK_RECEIVE sees unmasked payload only), and it accepts or silently drops
// several framings RFC 6455 answers with a close code. The tap replaces the library's
// import of recv(2) (its GOT slot, found through the dynamic section) with a function
// that hands calls made on a registered thread to the Swift side, and passes every
// other call straight through. Nothing else in the process is affected.

#include <stddef.h>
#include <sys/types.h>

/// What a tapped recv(2) on a registered thread calls: `context` is the one the thread
/// registered. It must behave as recv(2) does (a count, 0 at end of stream, -1 with errno).
typedef ssize_t (*rh_receive_tap_fn)(void *context, int fd, void *buffer, size_t length, int flags);

/// Redirects the recv(2) imports of the shared object that defines `anchor_symbol` (for
/// example "lws_create_context") through `tap`. Call once per process.
/// Returns 0 on success; -1 when the object or its recv import is not found (a static
/// build, another libc), -2 when its GOT could not be written.
int rh_receive_tap_install(const char *anchor_symbol, rh_receive_tap_fn tap);

/// The context handed to the tap for recv(2) calls the library makes on this thread;
/// NULL (the default) lets them pass straight through.
void rh_receive_tap_set_thread_context(void *context);

/// recv(2) as the library would have called it without the tap.
ssize_t rh_receive_tap_original(int fd, void *buffer, size_t length, int flags);

/// A guard on the close(2) calls of the shared object that defines `anchor_symbol`
/// (libwebsockets), installed once per process like the tap. While it is up on a thread
/// (`rh_close_guard_begin` to `rh_close_guard_end`), a descriptor the library closes there
/// a second time is not closed again: lws 4.1.6 on libuv closes its event pipe when a
/// context is destroyed and once more from libuv's close callback, and the number may
/// belong to another thread's new descriptor by then. Calls on other threads, and on this
/// one outside the guard, pass straight through.
/// Returns 0 on success; -1 when the object or its close import is not found, -2 when its
/// GOT could not be written.
int rh_close_guard_install(const char *anchor_symbol);

/// Raises the guard on the calling thread (it remembers what the library closes from now).
void rh_close_guard_begin(void);

/// Lowers the guard on the calling thread and forgets what it remembered.
void rh_close_guard_end(void);

#endif
