import Foundation
import JWTKit

/// The signed-in person as a destination's backend sees them: a JSON Web Token the server
/// signs (ES256, with its own key, published at `GET /apps/{appID}/destination-keys`) for
/// one request, in `Authorization: Bearer`.
///
/// - `iss`: the app's issuer (`{server}/apps/{appID}`), `aud`: the destination's URL as
///   the admin set it, so a token for one backend is refused by another;
/// - `sub`: the user name, with `app` and `registration`: who, in which app, on which
///   registered device;
/// - `exp` ``lifetime`` after `iat`, and a unique `jti`, so a backend can refuse one it saw.
///
/// The claims are declared here once: a backend written in Swift (the demo's crew
/// backend) verifies the token as this type.
public struct DestinationIdentity: JWTPayload {
    /// How long a forwarded identity is good for: one request's worth.
    public static let lifetime: TimeInterval = 5 * 60

    public var iss: IssuerClaim
    public var sub: SubjectClaim
    public var aud: AudienceClaim
    public var exp: ExpirationClaim
    public var iat: IssuedAtClaim
    public var jti: IDClaim
    /// The app's ID.
    public var app: String
    /// The registered device's registration ID.
    public var registration: String
    /// The person's name, for people.
    public var name: String

    /// When the token was issued, in whole seconds: the key that signs then signs it.
    public var issuedAt: Date { iat.value }

    public func verify(using algorithm: some JWTAlgorithm) async throws {
        try exp.verifyNotExpired()
    }

    init(
        issuer: String,
        audience: String,
        username: String,
        displayName: String,
        app: String,
        registration: String,
        at time: Date
    ) {
        // Whole seconds, as mainstream libraries read NumericDates.
        let issued = Date(timeIntervalSince1970: time.timeIntervalSince1970.rounded(.down))
        iss = .init(value: issuer)
        sub = .init(value: username)
        aud = .init(value: [audience])
        exp = .init(value: issued.addingTimeInterval(Self.lifetime))
        iat = .init(value: issued)
        jti = .init(value: UUID().uuidString)
        self.app = app
        self.registration = registration
        name = displayName
    }
}
