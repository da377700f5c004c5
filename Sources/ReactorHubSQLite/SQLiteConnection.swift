internal import CSQLite

/// One SQLite connection with the few operations the store needs. SQLite result codes
/// become `PersistenceError`s in `check`, and nowhere else.
///
/// Not thread-safe by itself: each user keeps its connection to one thread or behind a lock.
final class SQLiteConnection {
    let path: String
    private var handle: OpaquePointer?

    init(path: String, readOnly: Bool = false) throws(PersistenceError) {
        self.path = path
        let flags = readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        let result = sqlite3_open_v2(path, &handle, flags | SQLITE_OPEN_NOMUTEX, nil)
        guard result == SQLITE_OK else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close(handle)
            handle = nil
            throw PersistenceError("\(path): cannot open the database (\(message))")
        }
        sqlite3_busy_timeout(handle, 5000)
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    func check(_ result: Int32, _ doing: String) throws(PersistenceError) {
        guard result == SQLITE_OK || result == SQLITE_DONE || result == SQLITE_ROW else {
            let message = String(cString: sqlite3_errmsg(handle))
            throw PersistenceError("\(path): \(doing) failed: \(message)")
        }
    }

    /// Runs statements that return nothing.
    func execute(_ sql: String) throws(PersistenceError) {
        var error: UnsafeMutablePointer<CChar>?
        let result = sqlite3_exec(handle, sql, nil, nil, &error)
        if result != SQLITE_OK {
            let message = error.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(error)
            throw PersistenceError("\(path): \(message)")
        }
    }

    func prepare(_ sql: String) throws(PersistenceError) -> SQLiteStatement {
        var statement: OpaquePointer?
        try check(sqlite3_prepare_v2(handle, sql, -1, &statement, nil), "preparing a statement")
        return SQLiteStatement(statement!, connection: self)
    }

    /// The first column of the first row of `sql`, as text.
    func scalar(_ sql: String) throws(PersistenceError) -> String? {
        let statement = try prepare(sql)
        guard try statement.step() else { return nil }
        return statement.text(0)
    }
}

/// A prepared statement; reset and rebound for each use.
final class SQLiteStatement {
    private let statement: OpaquePointer
    private unowned let connection: SQLiteConnection

    init(_ statement: OpaquePointer, connection: SQLiteConnection) {
        self.statement = statement
        self.connection = connection
    }

    deinit {
        sqlite3_finalize(statement)
    }

    func reset() {
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
    }

    func bind(_ index: Int32, _ text: String) {
        sqlite3_bind_text(statement, index, text, -1, rh_sqlite_transient())
    }

    func bind(_ index: Int32, _ value: Int) {
        sqlite3_bind_int64(statement, index, Int64(value))
    }

    func bind(_ index: Int32, bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            _ = sqlite3_bind_text(
                statement, index, buffer.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(buffer.count), rh_sqlite_transient()
            )
        }
    }

    /// Advances; true when a row is available.
    @discardableResult
    func step() throws(PersistenceError) -> Bool {
        let result = sqlite3_step(statement)
        try connection.check(result, "a statement")
        return result == SQLITE_ROW
    }

    /// Runs a statement that returns no rows, then resets it.
    func run() throws(PersistenceError) {
        defer { reset() }
        try step()
    }

    func int(_ column: Int32) -> Int {
        Int(sqlite3_column_int64(statement, column))
    }

    func text(_ column: Int32) -> String? {
        guard let pointer = sqlite3_column_text(statement, column) else { return nil }
        return String(cString: pointer)
    }

    func bytes(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(statement, column))
        guard count > 0, let pointer = sqlite3_column_blob(statement, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }
}
