#if canImport(Glibc)
import Glibc
#endif

/// This process's exclusive hold on a database file: a POSIX record lock on `PATH.lock`,
/// taken before anything else touches the database and kept for the life of the store
/// (the kernel drops it when the process ends, however it ends). A second daemon on the
/// same file is refused at start with the holder's pid, instead of both running and the
/// last writer winning.
///
/// The lock is on a file of its own: SQLite holds POSIX locks on the database itself, and a
/// process's POSIX locks on a file all go when it closes any descriptor of that file. Locks
/// of one process do not exclude each other, so stores opened twice in one process (tests
/// of a restart) are not refused.
final class StoreLock {
    /// The lock file.
    let path: String
    private let descriptor: Int32

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// Takes the lock of the database at `databasePath`, and writes this process's pid
    /// into the lock file for people who look.
    static func acquire(for databasePath: String) throws(PersistenceError) -> StoreLock {
        let path = databasePath + ".lock"
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw PersistenceError("persistence.path: cannot create the lock file \(path) (\(String(cString: strerror(errno))))")
        }
        var attempts = 0
        while true {
            var lock = Self.wholeFile(type: F_WRLCK)
            if fcntl(descriptor, F_SETLK, &lock) == 0 { break }
            let failure = errno
            guard failure == EACCES || failure == EAGAIN else {
                close(descriptor)
                throw PersistenceError("persistence.path: cannot lock \(path) (\(String(cString: strerror(failure))))")
            }
            var holder = Self.wholeFile(type: F_WRLCK)
            if fcntl(descriptor, F_GETLK, &holder) == 0, holder.l_type != Int16(F_UNLCK) {
                close(descriptor)
                throw PersistenceError("persistence.path: \(databasePath) is in use by another reactorhub (pid \(holder.l_pid))")
            }
            // The holder let go between the two calls: try again, a few times.
            attempts += 1
            guard attempts < 5 else {
                close(descriptor)
                throw PersistenceError("persistence.path: \(databasePath) is in use by another reactorhub")
            }
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(descriptor, 0)
        _ = pid.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        return StoreLock(path: path, descriptor: descriptor)
    }

    private static func wholeFile(type: Int32) -> flock {
        var lock = flock()
        lock.l_type = Int16(type)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = 0
        lock.l_len = 0
        return lock
    }
}
