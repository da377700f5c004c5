#ifndef REACTORHUB_CSIGNALPIPE_H
#define REACTORHUB_CSIGNALPIPE_H

// SIGINT and SIGTERM turned into bytes on a pipe, by a signal handler written in C.
//
// The daemon first ignored both signals and observed them through Dispatch signal
// sources. libdispatch arms such a source later, on its own thread; a signal that came
// in between (an operator's stop right after the start, on a loaded machine) was ignored
// and lost, and the daemon never stopped. A handler set with sigaction(2) is in place
// when the call returns, and the handler only calls write(2), which is async-signal-safe;
// the byte waits in the pipe until someone reads it.

/// Installs the handler for SIGINT and SIGTERM (each delivery writes the signal's number
/// as one byte; a full pipe drops the byte rather than block) and returns the pipe's
/// read end, non-blocking and close-on-exec; -1 with errno set when it cannot.
/// Call it once.
int rh_signal_pipe_install(void);

#endif
