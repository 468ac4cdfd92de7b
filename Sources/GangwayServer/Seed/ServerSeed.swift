/// What a new server holds before its first request: apps, users and app data.
///
/// One value describes a whole set-up, so the demo, the tests and the benchmark state
/// theirs the same way and ``MobileServicesServer/seed(_:)`` applies it through the same
/// checks as the admin API. New kinds of seed data are added as properties with a default,
/// so existing seeds keep compiling.
///
/// ```swift
/// let seed = ServerSeed(
///     apps: [SeedApp(id: "checks", name: "Ground checks", emailDomains: ["airline.example"])],
///     users: [SeedUser("alice", password: "alice-password", displayName: "Alice")]
/// )
/// try await server.seed(seed)
/// ```
public struct ServerSeed: Sendable, Hashable {
    /// The apps, created first, in order.
    public var apps: [SeedApp]
    /// The users, created after the apps, in order.
    public var users: [SeedUser]
    /// The app data, put after the users, in order.
    public var entities: [SeedEntity]

    /// A seed of the given apps, users and app data.
    public init(apps: [SeedApp] = [], users: [SeedUser] = [], entities: [SeedEntity] = []) {
        self.apps = apps
        self.users = users
        self.entities = entities
    }

    /// Nothing: the server stays as it is.
    public static let empty = ServerSeed()

    /// Whether the seed holds nothing to create.
    public var isEmpty: Bool { apps.isEmpty && users.isEmpty && entities.isEmpty }
}
