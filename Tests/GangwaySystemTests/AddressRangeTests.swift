import GangwaySystem
import Testing

@Suite("Trusted proxy addresses: what --trusted-proxy accepts and matches")
struct AddressRangeTests {
    @Test(
        "addresses and blocks in IPv4 and IPv6 are read; anything else is refused",
        arguments: [
            ("10.0.0.1", true), ("10.0.0.0/8", true), ("::1", true), ("fd00::/8", true), ("0.0.0.0/0", true),
            ("10.0.0.0/33", false), ("::/129", false), ("10.0.0", false), ("proxy.example", false),
            ("10.0.0.1/", false), ("10.0.0.1/-1", false), ("", false), ("10.0.0.1/٣", false),
        ]
    )
    func parsing(text: String, valid: Bool) {
        #expect((AddressRange(text) != nil) == valid)
    }

    @Test("a block holds the addresses under its prefix, IPv4-mapped IPv6 ones included")
    func matching() throws {
        let block = try #require(AddressRange("192.168.4.0/22"))
        #expect(block.contains("192.168.7.255"))
        #expect(block.contains("::ffff:192.168.5.1"))
        #expect(!block.contains("192.168.8.0"))
        #expect(!block.contains("not an address"))
        let v6 = try #require(AddressRange("fd00::/8"))
        #expect(v6.contains("fd12:3456::1"))
        #expect(!v6.contains("fe80::1"))
        #expect(!v6.contains("10.0.0.1"))
        #expect(block.description == "192.168.4.0/22")
        #expect(AddressRange("::1")?.description == "::1")
    }

    @Test(
        "a block wider than a /8 of IPv4 or a /16 of IPv6 is wide, which serve warns of",
        arguments: [
            ("0.0.0.0/0", true), ("::/0", true), ("128.0.0.0/1", true), ("10.0.0.0/7", true), ("2000::/3", true),
            ("10.0.0.0/8", false), ("203.0.113.7", false), ("fd00::/16", false), ("fc00::/7", false),
            ("fd00::/8", false), ("fe80::/10", false), ("::1", false),
        ]
    )
    func wide(text: String, wide: Bool) throws {
        #expect(try #require(AddressRange(text)).isWide == wide)
    }

    @Test(
        "public addresses are told from private, loopback, link-local and reserved ones, IPv4-mapped included",
        arguments: [
            ("93.184.215.14", true), ("8.8.8.8", true), ("2606:4700::6810:84e5", true), ("172.32.0.1", true),
            ("10.0.0.1", false), ("127.0.0.1", false), ("169.254.169.254", false), ("172.16.5.4", false),
            ("192.168.1.1", false), ("100.64.0.1", false), ("0.0.0.0", false), ("224.0.0.1", false),
            ("255.255.255.255", false), ("::1", false), ("::", false), ("fd00::1", false), ("fe80::1", false),
            ("::ffff:10.0.0.1", false), ("::ffff:8.8.8.8", true), ("not-an-address", false), ("", false),
            ("64:ff9b::a9fe:a9fe", false), ("2002:a00:1::1", false), ("2001:0:4136:e378::1", false),
            ("::a00:1", false), ("fec0::1", false),
        ]
    )
    func publicAddresses(address: String, isPublic: Bool) {
        #expect(AddressRange.isPublic(address) == isPublic, "\(address)")
    }

    @Test("a host name resolves to its addresses through the system's resolver; a name that does not, to none")
    func resolving() async {
        let local = await HostAddresses.resolve("localhost")
        #expect(!local.isEmpty && local.allSatisfy { !AddressRange.isPublic($0) }, "\(local)")
        #expect(await HostAddresses.resolve("127.0.0.1") == ["127.0.0.1"])
        #expect(await HostAddresses.resolve("[::1]") == ["::1"])
        #expect(await HostAddresses.resolve("no-such-host.invalid").isEmpty)
        #expect(await HostAddresses.resolve("").isEmpty)
    }
}
