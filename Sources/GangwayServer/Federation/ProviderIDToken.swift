import Foundation
import JWTKit

/// The claims of an ID token from an app's OpenID Connect provider that the server reads
/// (OpenID Connect Core §2, §5.1). JWTKit checks the signature; ``ProviderIdentity``'s
/// checks do the rest, against the server's clock.
struct ProviderIDToken: JWTPayload {
    var iss: String
    var sub: String
    var aud: AudienceClaim
    var exp: Date
    var nonce: String?
    var azp: String?
    var email: String?
    var name: String?
    var preferredUsername: String?
    /// Every claim that is a text or a list of texts, by name: what an app's
    /// `attributeClaims` may read user attributes from.
    var texts: [String: [String]] = [:]

    private enum CodingKeys: String, CodingKey {
        case iss, sub, aud, exp, nonce, azp, email, name
        case preferredUsername = "preferred_username"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        iss = try container.decode(String.self, forKey: .iss)
        sub = try container.decode(String.self, forKey: .sub)
        aud = try container.decode(AudienceClaim.self, forKey: .aud)
        exp = Date(timeIntervalSince1970: try container.decode(Double.self, forKey: .exp))
        nonce = try container.decodeIfPresent(String.self, forKey: .nonce)
        azp = try container.decodeIfPresent(String.self, forKey: .azp)
        // Claims a provider may send as another type are read only when they are text.
        email = try? container.decodeIfPresent(String.self, forKey: .email)
        name = try? container.decodeIfPresent(String.self, forKey: .name)
        preferredUsername = try? container.decodeIfPresent(String.self, forKey: .preferredUsername)
        let claims = try decoder.container(keyedBy: ClaimName.self)
        for key in claims.allKeys {
            if let text = try? claims.decode(String.self, forKey: key) {
                texts[key.stringValue] = [text]
            } else if let list = try? claims.decode([String].self, forKey: key) {
                texts[key.stringValue] = list
            }
        }
    }

    /// Any claim's name.
    private struct ClaimName: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(iss, forKey: .iss)
        try container.encode(sub, forKey: .sub)
        try container.encode(aud, forKey: .aud)
        try container.encode(exp.timeIntervalSince1970, forKey: .exp)
        try container.encodeIfPresent(nonce, forKey: .nonce)
    }

    /// Nothing here: the claims are checked against the server's injected clock by
    /// ``ProviderIdentity/init(_:issuer:clientID:nonce:now:)``.
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// Who signed in at a provider, from an ID token whose signature, issuer, audience,
/// expiry and nonce were checked (OpenID Connect Core §3.1.3.7).
struct ProviderIdentity: Sendable, Hashable {
    var issuer: String
    var subject: String
    var email: String?
    var name: String?
    var preferredUsername: String?
    /// The token's claims that are texts or lists of texts (``ProviderIDToken/texts``).
    var texts: [String: [String]] = [:]

    /// How far the provider's clock may be ahead of the server's.
    static let clockSkew: TimeInterval = 60

    init(
        _ token: ProviderIDToken,
        issuer: String,
        clientID: String,
        nonce: String?,
        now: Date
    ) throws(FederationError) {
        guard token.iss == issuer else { throw .invalidIDToken("the ID token's issuer is another provider") }
        guard token.aud.value.contains(clientID) else {
            throw .invalidIDToken("the ID token is for another client (its audience does not name this app's client)")
        }
        // Several audiences: the token must say it was issued to this client (§3.1.3.7, 4–5).
        if token.aud.value.count > 1 || token.azp != nil, token.azp != clientID {
            throw .invalidIDToken("the ID token was issued to another client (azp)")
        }
        guard token.exp.addingTimeInterval(Self.clockSkew) > now else {
            throw .invalidIDToken("the ID token expired")
        }
        if let nonce, token.nonce != nonce {
            throw .invalidIDToken("the ID token's nonce is not the one this sign-in sent")
        }
        guard !token.sub.isEmpty, token.sub.utf8.count <= 255 else {
            throw .invalidIDToken("the ID token's subject is empty or longer than 255 bytes")
        }
        self.issuer = token.iss
        subject = token.sub
        email = token.email
        name = token.name
        preferredUsername = token.preferredUsername
        texts = token.texts
    }
}
