#if canImport(Glibc)
import Glibc
#endif

/// A non-blocking pipe that wakes a thread sleeping in `poll` (the self-pipe trick).
final class WakePipe: Sendable {
    /// The end to poll for readability.
    let readEnd: Int32
    private let writeEnd: Int32

    init() {
        var fds: [Int32] = [-1, -1]
        let result = pipe(&fds)
        precondition(result == 0, "pipe() failed: errno \(errno)")
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        readEnd = fds[0]
        writeEnd = fds[1]
    }

    deinit {
        Glibc.close(readEnd)
        Glibc.close(writeEnd)
    }

    /// Makes the read end readable (a full pipe is already readable: nothing is lost).
    func wake() {
        var byte: UInt8 = 1
        _ = Glibc.write(writeEnd, &byte, 1)
    }

    /// Empties the pipe after a wake-up.
    func drain() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while buffer.withUnsafeMutableBytes({ Glibc.read(readEnd, $0.baseAddress, $0.count) }) > 0 {}
    }
}
