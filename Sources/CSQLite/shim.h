#ifndef REACTORHUB_CSQLITE_SHIM_H
#define REACTORHUB_CSQLITE_SHIM_H

// SQLite 3 as Debian ships it (libsqlite3-dev). SQLITE_TRANSIENT is a macro that does
// not import into Swift; it is exposed here as a function.

#include <sqlite3.h>

/// Tells sqlite3_bind_* to copy the bound bytes before returning.
static inline sqlite3_destructor_type rh_sqlite_transient(void) { return SQLITE_TRANSIENT; }

#endif
