import Foundation
import FuzzSupport
import GangwayProtocol

@testable import GangwayServer

// The small text formats both sides of the API read: RFC 3339 dates
// (`LenientDateTranscoder`, every `date-time` of every request), base64url (signatures,
// sealed changes, activation payloads), UUIDs, PKCE values, redirect URIs, issuer URLs,
// app versions and email domains.
//
// Modes (first byte): 0 reads the rest as a date-time; 1 as base64url; 2 writes the rest
// as base64url and reads it back; 3 reads the rest with each of the other checks.

runFuzzer(fuzz)

@_cdecl("LLVMFuzzerTestOneInput")
func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let (mode, rest) = FuzzInput(start, count).mode(of: 4) else { return 0 }
    switch mode {
    case 0: readDate(rest.text)
    case 1: readBase64URL(rest.text)
    case 2:
        let data = Data(rest)
        invariant(Data(base64URLEncoded: data.base64URLEncoded) == data, "base64url reads back what it wrote")
    default: readOthers(rest.text)
    }
    return 0
}

private func readDate(_ text: String) {
    guard let date = LenientDateTranscoder.parse(text) else { return }
    let interval = date.timeIntervalSince1970
    // Years 0000 to 9999 in UTC are written by Gangway itself, and read back to the second.
    guard interval >= -62_167_219_200, interval < 253_402_300_800 else { return }
    let written = LenientDateTranscoder.format(date)
    invariant(
        LenientDateTranscoder.parse(written)?.timeIntervalSince1970 == interval.rounded(.down),
        "a date-time Gangway writes reads back to the second"
    )
}

private func readBase64URL(_ text: String) {
    guard let data = Data(base64URLEncoded: text) else { return }
    let unpadded = String(text.reversed().drop { $0 == "=" }.reversed())
    // One text per value: what reads is what Gangway writes, but for the padding and
    // the bits past the last whole byte.
    let written = data.base64URLEncoded
    invariant(Data(base64URLEncoded: written) == data, "base64url reads back what it wrote")
    invariant(written.count == unpadded.count, "base64url of the same bytes has the same length")
}

private func readOthers(_ text: String) {
    if PKCE.isValidChallenge(text) {
        invariant(Data(base64URLEncoded: text)?.count == 32, "a PKCE challenge is 32 bytes")
    }
    if PKCE.isValidVerifier(text) {
        invariant(PKCE.isValidChallenge(PKCE.challenge(for: text)), "a verifier's challenge is a valid challenge")
    }
    if RedirectURI.isValid(text) {
        invariant(RedirectURI.matches(registered: text, presented: text), "a redirect URI matches itself")
        if let loopback = RedirectURI.withoutPort(text) {
            invariant(RedirectURI.withoutPort(loopback) == loopback, "a loopback URI without its port has none")
        }
    }
    _ = IssuerURL.isValid(text)
    if let id = UUID(uuidString: text) {
        invariant(id.lowercasedText == id.uuidString.lowercased(), "a UUID's text is its lowercase uuidString")
    }
    if let version = try? AppVersion(text) {
        invariant(!(version < version) && version == version, "a version equals itself")
    }
    _ = try? Validation.emailDomain(text)
    _ = TextRules.hasControlCharacters(text)
}
