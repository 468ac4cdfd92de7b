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
struct DestinationIdentity: JWTPayload {
    /// How long a forwarded identity is good for: one request's worth.
    static let lifetime: TimeInterval = 5 * 60

    var iss: IssuerClaim
    var sub: SubjectClaim
    var aud: AudienceClaim
    var exp: ExpirationClaim
    var iat: IssuedAtClaim
    var jti: IDClaim
    var app: String
    var registration: String
    var name: String

    func verify(using algorithm: some JWTAlgorithm) async throws {
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
