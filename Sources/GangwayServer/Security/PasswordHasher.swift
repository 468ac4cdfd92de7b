import Crypto
import Foundation
import HummingbirdBcrypt
import NIOPosix

/// bcrypt, run on NIO's thread pool so a sign-in never stalls an event loop.
///
/// bcrypt reads at most 72 bytes, so the password is first reduced to the base64 of its
/// SHA-256 (44 bytes): every character of a long password counts, and no two passwords
/// share a hash because their first 72 bytes agree.
struct PasswordHasher: Sendable {
    /// The bcrypt cost (log2 of the rounds): 12 by default; tests use 4.
    var cost: UInt8

    /// A hash at the same cost, checked for unknown users so that they take as long
    /// as known ones and a timing does not tell which user names exist.
    let placeholderHash: String

    init(cost: UInt8 = 12) {
        precondition((4...31).contains(cost), "bcrypt cost must be between 4 and 31")
        self.cost = cost
        placeholderHash = Bcrypt.hash("gangway-placeholder-password", cost: cost)
    }

    func hash(_ password: String) async throws -> String {
        let cost = cost
        let input = Self.prepared(password)
        return try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(input, cost: cost) }
    }

    func verify(_ password: String, against hash: String) async throws -> Bool {
        let input = Self.prepared(password)
        return try await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(input, hash: hash) }
    }

    private static func prepared(_ password: String) -> String {
        Data(SHA256.hash(data: Data(password.utf8))).base64EncodedString()
    }
}
