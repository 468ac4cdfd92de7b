import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The addresses a host name resolves to, as the system's resolver gives them (the same
/// `getaddrinfo` an HTTP client connects through): for a check of where a connection
/// would go before it is made.
public enum HostAddresses {
    /// The IPv4 and IPv6 addresses of `host` (an address itself is its own), as text;
    /// empty when it does not resolve. The lookup blocks, so it runs on a thread of its
    /// own, never one of Swift's cooperative threads.
    public static func resolve(_ host: String) async -> [String] {
        let host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        guard !host.isEmpty, !host.utf8.contains(0) else { return [] }
        return await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: lookUp(host)) }
            thread.start()
        }
    }

    private static func lookUp(_ host: String) -> [String] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc) || canImport(Musl)
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
            hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(first) }
        var addresses: [String] = []
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let entry = next {
            var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            if let address = entry.pointee.ai_addr,
                getnameinfo(
                    address,
                    entry.pointee.ai_addrlen,
                    &buffer,
                    socklen_t(buffer.count),
                    nil,
                    0,
                    NI_NUMERICHOST
                ) == 0
            {
                let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                // A scoped IPv6 address (fe80::1%eth0) is checked without its zone.
                let bare = String(text.prefix { $0 != "%" })
                if !addresses.contains(bare) { addresses.append(bare) }
            }
            next = entry.pointee.ai_next
        }
        return addresses
    }
}
