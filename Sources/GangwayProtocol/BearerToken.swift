import Crypto
import Foundation

/// Opaque bearer tokens: 32 random bytes the client keeps, a SHA-256 the server keeps.
public enum BearerToken {
    /// A new random token, `gw_` and 43 base64url characters.
    public static func make() -> String {
        "gw_" + random()
    }

    /// A new secret of 32 random bytes, as 43 base64url characters: a session cookie's
    /// value, a challenge.
    public static func random() -> String {
        SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }.base64URLEncoded
    }

    /// What the server stores and looks tokens up by.
    public static func hash(_ token: String) -> Data {
        AdminProof.tokenHash(token)
    }

    /// The token of an `Authorization: Bearer …` header, if the header has that shape.
    public static func parse(authorization: String?) -> String? {
        guard let authorization else { return nil }
        let parts = authorization.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        // Plain Swift, not Foundation's trimming: this runs on every request.
        var token = parts[1].drop(while: { $0 == " " || $0 == "\t" })
        while let last = token.last, last == " " || last == "\t" { token = token.dropLast() }
        return token.isEmpty || token.count > 256 ? nil : String(token)
    }
}
