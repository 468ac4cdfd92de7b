import GangwayPolicy
import GangwayServer

extension ServerSeed {
    /// The tests' standard seed: the app ``SeedApp/checks`` and the users
    /// ``SeedUser/alice`` and ``SeedUser/bob``.
    public static let checks = ServerSeed(apps: [.checks], users: [.alice, .bob])
}

extension SeedApp {
    /// The app "checks" ("Ground checks"), discovered by the domain airline.example.
    public static let checks = SeedApp(id: "checks", name: "Ground checks", emailDomains: ["airline.example"])
}

extension SeedUser {
    /// Alice, password `alice-password`.
    public static let alice = SeedUser("alice", password: "alice-password", displayName: "Alice")
    /// Bob, password `bob-password`.
    public static let bob = SeedUser("bob", password: "bob-password", displayName: "Bob")
}
