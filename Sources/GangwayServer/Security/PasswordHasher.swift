import HummingbirdBcrypt
import NIOPosix

/// bcrypt, run on NIO's thread pool so a sign-in never stalls an event loop.
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
        return try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(password, cost: cost) }
    }

    func verify(_ password: String, against hash: String) async throws -> Bool {
        try await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(password, hash: hash) }
    }
}
