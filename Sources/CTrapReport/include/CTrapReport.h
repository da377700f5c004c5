#ifndef REACTORHUB_CTRAPREPORT_H
#define REACTORHUB_CTRAPREPORT_H

// One line on standard error when a reactor's own code traps (a failed precondition, an
// overflow, an index out of range), naming the instance and the action it was running,
// before the process ends as it would have.
//
// A Swift trap ends the process: nothing in Swift can catch it. What the runtime can do
// is say where it was: before it runs a reactor's code for an item it records, in
// thread-local storage, pointers to two strings that live while the item runs (the
// instance, the action); a handler for the trap signals writes them with write(2),
// which is async-signal-safe, then re-raises the signal with its default action.

/// Installs the handlers for SIGILL, SIGTRAP, SIGSEGV, SIGBUS and SIGFPE (on an alternate
/// stack, so that a stack overflow is reported too); `prefix` (copied, at most 63 bytes)
/// starts the line. Call it once; later calls do nothing.
void rh_trap_report_install(const char *prefix);

/// From now on, on this thread, a trap is reported as happening in `instance` while
/// running `action` (either may be NULL). The strings are not copied: they must outlive
/// the process's use of them.
void rh_trap_report_enter(const char *instance, const char *action);

/// This thread is no longer running a reactor's code.
void rh_trap_report_leave(void);

#endif
