import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An IP address or a block of them (`203.0.113.7`, `10.0.0.0/8`, `::1`, `fd00::/8`):
/// what `--trusted-proxy` names.
public struct AddressRange: Sendable, Hashable, CustomStringConvertible {
    /// The network's bytes (4 for IPv4, 16 for IPv6), the bits past the prefix zero.
    private let network: [UInt8]
    private let prefixLength: Int

    /// Reads an address with an optional `/prefix`; `nil` when it is not one.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let bytes = Self.bytes(of: String(parts[0])) else { return nil }
        let bits = bytes.count * 8
        let prefixLength: Int
        if parts.count == 2 {
            guard let length = Int(parts[1]), (0...bits).contains(length), parts[1].allSatisfy(\.isASCII) else {
                return nil
            }
            prefixLength = length
        } else {
            prefixLength = bits
        }
        network = Self.masked(bytes, prefixLength)
        self.prefixLength = prefixLength
    }

    /// Whether `address` (an IP address as text) lies in this range.
    public func contains(_ address: String) -> Bool {
        guard let bytes = Self.bytes(of: address), bytes.count == network.count else { return false }
        return Self.masked(bytes, prefixLength) == network
    }

    /// Whether the block is wider than a /8 of IPv4 or a /16 of IPv6 (`0.0.0.0/0`, `::/0`),
    /// outside the private and link-local blocks: far more addresses than any proxy's, so
    /// that a client of almost any address is believed when it says whom it forwards for.
    public var isWide: Bool {
        prefixLength < (network.count == 4 ? 8 : 16)
            && !Self.privateBlocks.contains {
                $0.network.count == network.count && $0.prefixLength <= prefixLength
                    && Self.masked(network, $0.prefixLength) == $0.network
            }
    }

    /// IPv6's unique local and link-local blocks (IPv4's private blocks are no wider than a /8).
    private static let privateBlocks = ["fc00::/7", "fe80::/10"].compactMap(AddressRange.init)

    /// The blocks of addresses that are not on the public internet: this host, private
    /// networks (RFC 1918, IPv6 unique local), link-local (cloud metadata services answer
    /// at 169.254.169.254), carrier-grade NAT, benchmarking, documentation, multicast and
    /// reserved blocks.
    public static let nonPublic: [AddressRange] = [
        "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
        "192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24",
        "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
        // IPv6: unspecified, loopback and the IPv4-compatible block; the blocks that carry
        // an IPv4 address inside (NAT64, 6to4, Teredo), whose inner address may be private;
        // discard, documentation, unique and site-local, link-local, multicast.
        "::/96", "64:ff9b::/96", "64:ff9b:1::/48", "2002::/16", "2001::/32", "100::/64", "2001:db8::/32",
        "fc00::/7", "fec0::/10", "fe80::/10", "ff00::/8",
    ].compactMap(AddressRange.init)

    /// Whether `address` (an IP address as text) is on the public internet: an address,
    /// and in none of ``nonPublic``.
    public static func isPublic(_ address: String) -> Bool {
        guard normalized(address) != nil else { return false }
        return !nonPublic.contains { $0.contains(address) }
    }

    public var description: String {
        let address = Self.text(of: network) ?? "?"
        return prefixLength == network.count * 8 ? address : "\(address)/\(prefixLength)"
    }

    /// The address in its usual text, IPv4-mapped IPv6 addresses as IPv4; `nil` when
    /// `text` is not an address.
    static func normalized(_ text: String) -> String? {
        bytes(of: text).flatMap(Self.text(of:))
    }

    /// 4 bytes for an IPv4 address (an IPv4-mapped IPv6 address included), 16 for IPv6.
    private static func bytes(of text: String) -> [UInt8]? {
        guard !text.isEmpty, text.count <= 45 else { return nil }
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff {
            return Array(bytes[12...])
        }
        return bytes
    }

    private static func text(of bytes: [UInt8]) -> String? {
        var buffer = [CChar](repeating: 0, count: 64)
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        let written = bytes.withUnsafeBytes { source in
            inet_ntop(family, source.baseAddress, &buffer, socklen_t(buffer.count))
        }
        guard written != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func masked(_ bytes: [UInt8], _ prefixLength: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let kept = min(max(prefixLength - index * 8, 0), 8)
            return kept == 8 ? byte : byte & ~(UInt8.max >> kept)
        }
    }
}

extension [AddressRange] {
    /// The client's address for a request from `peer` that carried `forwardedFor` (the
    /// `X-Forwarded-For` header): the peer itself unless it is a trusted proxy; else the
    /// header's addresses from the right, skipping trusted proxies, up to the first that
    /// is not one. A malformed entry ends the walk at the last trusted hop, so a client
    /// cannot choose its address by sending the header itself.
    public func clientAddress(peer: String, forwardedFor: String?) -> String {
        guard var address = AddressRange.normalized(peer) else { return peer }
        guard contains(where: { $0.contains(address) }), let forwardedFor else { return address }
        for entry in forwardedFor.split(separator: ",").reversed() {
            let trimmed = entry.trimmingCharacters(in: .whitespaces)
            guard let hop = AddressRange.normalized(trimmed) else { return address }
            address = hop
            if !contains(where: { $0.contains(hop) }) { return hop }
        }
        return address
    }
}
