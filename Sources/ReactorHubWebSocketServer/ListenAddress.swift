#if canImport(Glibc)
import Glibc
#endif

/// The configured `host`, classified for libwebsockets' `iface` option.
public enum ListenAddress: Equatable, Sendable {
    /// Every IPv6 and IPv4 address (`::`).
    case any
    /// Every IPv4 address (`0.0.0.0`).
    case ipv4Any
    /// One IPv4 address (`localhost` means 127.0.0.1).
    case ipv4(String)
    /// One IPv6 address.
    case ipv6(String)
    /// Not an address this server can bind.
    case invalid

    /// Whether `host` binds only this machine's loopback (127.0.0.0/8, ::1, localhost).
    public static func isLoopback(_ host: String) -> Bool {
        switch ListenAddress(host) {
        case .ipv4(let address): address.hasPrefix("127.")
        case .ipv6(let address): address == "::1"
        default: false
        }
    }

    init(_ host: String) {
        switch host {
        case "::", "[::]":
            self = .any
        case "0.0.0.0":
            self = .ipv4Any
        case "localhost":
            self = .ipv4("127.0.0.1")
        default:
            var v4 = in_addr()
            var v6 = in6_addr()
            if inet_pton(AF_INET, host, &v4) == 1 {
                self = .ipv4(host)
            } else if inet_pton(AF_INET6, host, &v6) == 1 {
                self = .ipv6(host)
            } else {
                self = .invalid
            }
        }
    }
}
