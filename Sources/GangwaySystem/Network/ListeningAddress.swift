#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whether a server could listen on a host and port now, checked by binding a socket
/// there (with the address reuse servers set) and letting it go: so that a server says
/// why it cannot listen, in words, before it writes anything.
public enum ListeningAddress {
    /// The ports a server may be told to listen on: 0 lets the system choose a free one.
    public static let ports = 0...65_535

    /// Why a server cannot listen on an address.
    public enum Problem: Error, Hashable, Sendable {
        /// Another program listens there.
        case inUse
        /// The host is not an address of this machine (or names none).
        case notHere
        /// A port below 1024 without the privilege for it.
        case privileged
        /// Anything else, with the system's text.
        case other(String)
    }

    /// `nil` when `host:port` can be listened on now (on port 0, when `host` is an
    /// address of this machine: the system chooses the port), otherwise why not.
    public static func problem(host: String, port: Int) -> Problem? {
        guard ports.contains(port) else {
            return .other("the port is outside \(ports.lowerBound) to \(ports.upperBound)")
        }
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
            hints.ai_socktype = SOCK_STREAM
        #endif
        var results: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &results) == 0, let first = results else { return .notHere }
        defer { freeaddrinfo(results) }
        let descriptor = socket(first.pointee.ai_family, first.pointee.ai_socktype, first.pointee.ai_protocol)
        guard descriptor >= 0 else { return .other(String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var reuse: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        guard bind(descriptor, first.pointee.ai_addr, first.pointee.ai_addrlen) != 0 else { return nil }
        switch errno {
        case EADDRINUSE: return .inUse
        case EADDRNOTAVAIL: return .notHere
        case EACCES: return .privileged
        case let code: return .other(String(cString: strerror(code)))
        }
    }
}

extension ListeningAddress.Problem: CustomStringConvertible {
    /// The reason, for a person, to follow "cannot listen on HOST:PORT: ".
    public var description: String {
        switch self {
        case .inUse: "another program is listening there"
        case .notHere: "that host is not an address of this machine"
        case .privileged: "ports below 1024 need privileges this process does not have"
        case .other(let text): text
        }
    }
}
