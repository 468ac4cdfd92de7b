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
}
