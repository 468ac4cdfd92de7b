import Crypto
import Foundation
import GangwayProtocol
import GangwayServerStorage

/// Device cookies: a random secret the server gives a device when a user signs in on it,
/// and keeps only the hash of. A later sign-in of the same user that presents it is
/// throttled apart from anyone else guessing that user's password (see
/// ``SignInThrottle``), so no guesser can lock a person out of the devices they use.
enum DeviceCookie {
    /// How long a cookie counts from when it was given; a sign-in after that gets a new one.
    static let lifetime = DeviceCookieRecord.lifetime

    /// A new cookie, `gwd_` and 43 base64url characters.
    static func make() -> String {
        "gwd_" + SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }.base64URLEncoded
    }

    static func hash(_ cookie: String) -> Data {
        AdminProof.tokenHash(cookie)
    }
}
