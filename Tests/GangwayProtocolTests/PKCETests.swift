import GangwayProtocol
import Testing

@Suite("PKCE, S256: the challenge of a verifier, and which verifiers and challenges are taken")
struct PKCETests {
    @Test("RFC 7636 Appendix B's example verifier gives its challenge")
    func rfcExample() {
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        #expect(PKCE.challenge(for: verifier) == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        #expect(PKCE.isValidVerifier(verifier))
        #expect(PKCE.isValidChallenge(PKCE.challenge(for: verifier)))
    }

    @Test("verifiers of 43 to 128 unreserved characters only; challenges of 32 bytes only")
    func bounds() {
        #expect(PKCE.isValidVerifier(String(repeating: "a", count: 43)))
        #expect(PKCE.isValidVerifier(String(repeating: "~", count: 128)))
        for bad in [
            String(repeating: "a", count: 42), String(repeating: "a", count: 129), String(repeating: "é", count: 43),
            String(repeating: "a", count: 42) + "+", String(repeating: "a", count: 42) + " ",
        ] {
            #expect(!PKCE.isValidVerifier(bad), "\(bad)")
        }
        for bad in ["", "short", String(repeating: "A", count: 44), String(repeating: "*", count: 43)] {
            #expect(!PKCE.isValidChallenge(bad), "\(bad)")
        }
        #expect(OAuthGrantType(rawValue: "password") == nil)
        #expect(OAuthGrantType(rawValue: "urn:ietf:params:oauth:grant-type:device_code") == .deviceCode)
    }
}
