#define _GNU_SOURCE
#include "CTrapReport.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char line_prefix[64] = "reactorhub";
// The handlers in place before ours (the Swift runtime's backtracer, when on): restored
// before the signal is raised again, so that they still run.
static struct sigaction previous[32];
static volatile sig_atomic_t installed = 0;
static __thread const char *current_instance;
static __thread const char *current_action;

static void put(const char *text) {
    if (text == NULL) return;
    size_t length = strlen(text);
    while (length > 0) {
        ssize_t written = write(2, text, length);
        if (written <= 0) return;
        text += written;
        length -= (size_t)written;
    }
}

static const char *signal_name(int number) {
    switch (number) {
    case SIGILL: return "SIGILL";
    case SIGTRAP: return "SIGTRAP";
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    default: return "a signal";
    }
}

static void on_trap(int number) {
    const char *instance = current_instance;
    if (instance != NULL) {
        put(line_prefix);
        put(": a trap (");
        put(signal_name(number));
        put(") in the code of reactor ");
        put(instance);
        if (current_action != NULL) {
            put(" while it ran the action '");
            put(current_action);
            put("'");
        }
        put("; the daemon ends (docs/reactors.md, \"A trap ends the daemon\")\n");
    }
    if (number > 0 && number < 32) {
        sigaction(number, &previous[number], NULL);
    } else {
        signal(number, SIG_DFL);
    }
    raise(number);
}

void rh_trap_report_install(const char *prefix) {
    if (installed) return;
    installed = 1;
    if (prefix != NULL) {
        strncpy(line_prefix, prefix, sizeof line_prefix - 1);
        line_prefix[sizeof line_prefix - 1] = 0;
    }
    // An alternate stack: a stack overflow has no room left on the thread's own.
    static char alternate[65536];
    stack_t stack;
    memset(&stack, 0, sizeof stack);
    stack.ss_sp = alternate;
    stack.ss_size = sizeof alternate;
    sigaltstack(&stack, NULL);
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_trap;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_ONSTACK;
    int signals[] = {SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGFPE};
    for (size_t index = 0; index < sizeof signals / sizeof signals[0]; index++) {
        sigaction(signals[index], &action, &previous[signals[index]]);
    }
}

void rh_trap_report_enter(const char *instance, const char *action) {
    current_instance = instance;
    current_action = action;
}

void rh_trap_report_leave(void) {
    current_instance = NULL;
    current_action = NULL;
}
