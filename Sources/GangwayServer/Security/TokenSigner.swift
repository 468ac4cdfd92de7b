import Crypto
import Foundation
import GangwayProtocol
import GangwayServerStorage
import JWTKit

/// Signs JSON Web Tokens (ES256, with JWTKit) of one kind with a P-256 key of their own:
/// OpenID Connect ID tokens, or the identity forwarded to a destination. A key does one
/// job, apart from the activation key and each other. The public key is published as a
/// JWK set, named by its `kid` (the base64url of the first 16 bytes of the SHA-256 of its
/// x9.63 form), so a new key can stand beside an old one (``SigningKeyRing``).
struct TokenSigner: Sendable {
    let key: P256.Signing.PrivateKey
    /// The key's ID (``kid(of:)``).
    let kid: String
    private let keys: JWTKeyCollection

    /// How long an ID token is good for: it says who signed in, now.
    static let lifetime: TimeInterval = 10 * 60

    init(key: P256.Signing.PrivateKey) async throws {
        self.key = key
        kid = Self.kid(of: key.publicKey)
        keys = JWTKeyCollection()
        await keys.add(ecdsa: try ES256PrivateKey(backing: key), kid: JWKIdentifier(string: kid))
    }

    static func kid(of key: P256.Signing.PublicKey) -> String {
        Data(SHA256.hash(data: key.x963Representation).prefix(16)).base64URLEncoded
    }

    /// The public key as a JWK (RFC 7517, RFC 7518 §6.2).
    var jwk: Components.Schemas.JsonWebKey {
        let point = key.publicKey.x963Representation
        return .init(
            kty: .ec,
            crv: .p256,
            x: Data(point[1...32]).base64URLEncoded,
            y: Data(point[33...64]).base64URLEncoded,
            kid: kid,
            use: .sig,
            alg: .es256
        )
    }

    /// The claims of an ID token (OpenID Connect Core §2).
    struct Claims: JWTPayload {
        var iss: IssuerClaim
        var sub: SubjectClaim
        var aud: AudienceClaim
        var exp: ExpirationClaim
        var iat: IssuedAtClaim
        var nonce: String?
        var name: String
        var preferredUsername: String

        enum CodingKeys: String, CodingKey {
            case iss, sub, aud, exp, iat, nonce, name
            case preferredUsername = "preferred_username"
        }

        func verify(using algorithm: some JWTAlgorithm) async throws {
            try exp.verifyNotExpired()
        }
    }

    /// An ID token for `user`, issued by `issuer` to the app `audience`.
    func idToken(
        issuer: String,
        audience: String,
        user: UserRecord,
        nonce: String?,
        at time: Date
    ) async throws
        -> String
    {
        // NumericDates in whole seconds (RFC 7519 §2 allows fractions, but mainstream
        // clients such as Authlib read a fractional `iat` as issued in the future).
        let issued = Date(timeIntervalSince1970: time.timeIntervalSince1970.rounded(.down))
        return try await sign(
            Claims(
                iss: .init(value: issuer),
                sub: .init(value: user.username),
                aud: .init(value: [audience]),
                exp: .init(value: issued.addingTimeInterval(Self.lifetime)),
                iat: .init(value: issued),
                nonce: nonce,
                name: user.displayName,
                preferredUsername: user.username
            )
        )
    }

    /// `payload` signed, naming the key.
    func sign(_ payload: some JWTPayload) async throws -> String {
        try await keys.sign(payload, kid: JWKIdentifier(string: kid))
    }
}
