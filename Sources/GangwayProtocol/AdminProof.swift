import Crypto
import Foundation

/// How a server proves it holds the admin token before a client sends the token: the
/// client sends a random challenge to `POST /admin/proof`, the server answers the
/// HMAC-SHA256 of `gangway-admin-proof-v1` and the challenge, keyed with the SHA-256 of
/// the token (which it keeps), and the client checks it with the token it has.
///
/// A process that took the port a server used to listen on (a stale `url` file) cannot
/// answer, so the token never reaches it. The answer reveals nothing of the key.
public enum AdminProof {
    /// A new challenge: 32 random bytes, base64url.
    public static func challenge() -> String {
        BearerToken.random()
    }

    /// The proof for `challenge` by the holder of `tokenHash` (the SHA-256 of the token).
    public static func proof(challenge: String, tokenHash: Data) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: message(challenge), using: SymmetricKey(data: tokenHash))
        return Data(code).base64URLEncoded
    }

    /// Whether `proof` answers `challenge` for `token`, compared in constant time.
    public static func verify(_ proof: String, challenge: String, token: String) -> Bool {
        guard let given = Data(base64URLEncoded: proof) else { return false }
        let key = SymmetricKey(data: tokenHash(token))
        return HMAC<SHA256>.isValidAuthenticationCode(given, authenticating: message(challenge), using: key)
    }

    /// What a server keeps of a bearer token, and keys the proof with: its SHA-256.
    public static func tokenHash(_ token: String) -> Data {
        Data(SHA256.hash(data: Data(token.utf8)))
    }

    /// Whether `challenge` has the document's shape (`^[A-Za-z0-9_-]{43}$`), which
    /// ``challenge()`` gives: 43 base64url characters.
    public static func isWellFormed(challenge: String) -> Bool {
        challenge.utf8.count == 43
            && challenge.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                    true
                default: false
                }
            }
    }

    private static func message(_ challenge: String) -> Data {
        Data("gangway-admin-proof-v1".utf8) + Data(challenge.utf8)
    }
}
