import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Turns a host name into IP literals off the service thread: libwebsockets 4.1 as Debian
/// builds it has no asynchronous DNS, so a name given to it would block its thread in
/// `getaddrinfo`. Literals are returned as they are; names resolve on a global queue.
enum HostResolver {
    /// The addresses of `host`, IPv4 first (a daemon bound to 127.0.0.1 is the common case
    /// for `localhost`), without duplicates; empty when the name does not resolve.
    static func resolve(_ host: String, port: Int, completion: @escaping @Sendable ([String]) -> Void) {
        if isLiteral(host) {
            completion([host])
            return
        }
        DispatchQueue.global().async {
            completion(lookUp(host, port: port))
        }
    }

    static func isLiteral(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }

    private static func lookUp(_ host: String, port: Int) -> [String] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(first) }
        var v4: [String] = []
        var v6: [String] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            if let text = numericHost(current.pointee) {
                if current.pointee.ai_family == AF_INET {
                    if !v4.contains(text) { v4.append(text) }
                } else if !v6.contains(text) {
                    v6.append(text)
                }
            }
            entry = current.pointee.ai_next
        }
        return v4 + v6
    }

    private static func numericHost(_ info: addrinfo) -> String? {
        guard let address = info.ai_addr else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        let result = getnameinfo(address, info.ai_addrlen, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST)
        guard result == 0 else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
