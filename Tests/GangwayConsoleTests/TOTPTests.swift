import Foundation
import Testing

@testable import GangwayConsole

@Suite("Second factor: TOTP codes as authenticator apps make them (RFC 6238), taken within a step of now")
struct TOTPTests {
    /// RFC 6238 appendix B's SHA-1 key, "12345678901234567890".
    let rfc = TOTP(secret: Data("12345678901234567890".utf8))

    @Test(
        "the RFC's test vectors (8 digits), and their last 6 as the app shows them",
        arguments: [
            (59, "94287082"), (1_111_111_109, "07081804"), (1_111_111_111, "14050471"),
            (1_234_567_890, "89005924"), (2_000_000_000, "69279037"), (20_000_000_000, "65353130"),
        ]
    )
    func vectors(time: Int64, code: String) {
        let step = TOTP.step(at: Date(timeIntervalSince1970: TimeInterval(time)))
        #expect(rfc.code(atStep: step, digits: 8) == code)
        #expect(rfc.code(atStep: step) == String(code.suffix(6)))
    }

    @Test("a code is taken one step either side of now, and names its step; older, newer or malformed ones are not")
    func window() {
        let now = Date(timeIntervalSince1970: 1_234_567_890)
        let step = TOTP.step(at: now)
        for offset in -1...1 {
            #expect(rfc.matchingStep(of: rfc.code(atStep: step + Int64(offset)), at: now) == step + Int64(offset))
        }
        #expect(rfc.matchingStep(of: rfc.code(atStep: step - 2), at: now) == nil)
        #expect(rfc.matchingStep(of: rfc.code(atStep: step + 2), at: now) == nil)
        let code = rfc.code(atStep: step)
        #expect(rfc.matchingStep(of: code.prefix(3) + " " + code.dropFirst(3), at: now) == step, "a space is fine")
        for bad in ["", "12345", "1234567", "12345a", "１２３４５６", String(code.dropLast()) + "x"] {
            #expect(rfc.matchingStep(of: bad, at: now) == nil, "\(bad)")
        }
    }

    @Test("the key reaches the app as base32 without padding in an otpauth address")
    func provisioning() throws {
        #expect(Base32.encode(Data("12345678901234567890".utf8)) == "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ")
        #expect(Base32.encode(Data("f".utf8)) == "MY")
        #expect(Base32.encode(Data("foobar".utf8)) == "MZXW6YTBOI")
        #expect(Base32.grouped("MZXW6YTBOI") == "MZXW 6YTB OI")
        #expect(Base32.decode("mzxw 6ytb oi") == Data("foobar".utf8), "as a person types it")
        #expect(Base32.decode("MY======") == Data("f".utf8))
        #expect(Base32.decode("MZ1W") == nil, "1 is not base32")
        let secret = TOTP.newSecret()
        #expect(Base32.decode(Base32.grouped(Base32.encode(secret))) == secret)
        let address = try #require(URLComponents(string: rfc.provisioningURI(account: "ops.alice", issuer: "Gangway")))
        #expect(address.scheme == "otpauth")
        #expect(address.host == "totp")
        #expect(address.path == "/Gangway:ops.alice")
        let query = Dictionary(uniqueKeysWithValues: (address.queryItems ?? []).map { ($0.name, $0.value ?? "") })
        #expect(query["secret"] == "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ")
        #expect(query["issuer"] == "Gangway")
        #expect(query["digits"] == "6")
        #expect(query["period"] == "30")
        #expect(TOTP.newSecret().count == 20)
        #expect(TOTP.newSecret() != TOTP.newSecret())
    }
}
