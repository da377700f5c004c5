internal import CReceiveTap

/// The process's one tap on libwebsockets' recv(2) calls (the C module `CReceiveTap`):
/// the calls each service thread's libwebsockets makes go to its `ServerCore`, which runs
/// them through `RequestHeadMeter` (HTTP) or `FrameFilter` (WebSocket) before lws parses
/// the bytes. Calls on other threads, and for sockets the core does not track, pass
/// straight through.
///
/// libwebsockets 4.1 offers no callback between reading a socket and parsing it (its
/// `LWS_CALLBACK_RECEIVE` gets unmasked payload only; `LWS_CALLBACK_RAW_RX` exists for
/// the raw role, not for ws), so this is where the project reads the raw stream
/// (docs/conformance.md). Without the tap (an lws not loaded as a shared object), the
/// server runs as before: lws' own checks only.
enum ReceiveTap {
    /// Whether libwebsockets' recv import is redirected; installed on first use.
    static let isInstalled: Bool = rh_receive_tap_install("lws_create_context", tapEntry) == 0

    /// Sends the recv(2) calls libwebsockets makes on the calling thread to `core`, until
    /// `detach()`; called by the service thread when it starts.
    static func attach(_ core: ServerCore) {
        guard isInstalled else { return }
        rh_receive_tap_set_thread_context(Unmanaged.passUnretained(core).toOpaque())
    }

    /// Lets the calling thread's recv(2) calls pass straight through again.
    static func detach() {
        rh_receive_tap_set_thread_context(nil)
    }

    /// recv(2) as libwebsockets would have called it.
    static func originalReceive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, flags: Int32) -> Int {
        rh_receive_tap_original(fd, buffer.baseAddress, buffer.count, flags)
    }
}

/// The C entry of the tap: a service thread's core and the recv(2) arguments.
private let tapEntry: rh_receive_tap_fn = { context, fd, buffer, length, flags in
    guard let context, let buffer else {
        return rh_receive_tap_original(fd, buffer, length, flags)
    }
    let core = Unmanaged<ServerCore>.fromOpaque(context).takeUnretainedValue()
    return core.tappedReceive(fd, into: UnsafeMutableRawBufferPointer(start: buffer, count: length), flags: flags)
}

/// The process's guard on libwebsockets' close(2) calls while a context is destroyed (the
/// C module `CReceiveTap`): lws 4.1.6 on libuv closes each service thread's event pipe in
/// `lws_context_destroy` and again from libuv's close callback (strace: `close(16) = 0`,
/// then `close(16) = -1 EBADF`). Between the two, another thread may have been given that
/// number for a socket or a file of its own, which the second close would take from it.
/// The guard lets lws close a number once per destruction.
enum CloseGuard {
    /// Whether libwebsockets' close import is redirected; installed on first use.
    static let isInstalled: Bool = rh_close_guard_install("lws_create_context") == 0

    /// Runs `body` (a context's destruction, on the calling thread) with the guard up.
    static func destroying<Result>(_ body: () -> Result) -> Result {
        guard isInstalled else { return body() }
        rh_close_guard_begin()
        defer { rh_close_guard_end() }
        return body()
    }
}
