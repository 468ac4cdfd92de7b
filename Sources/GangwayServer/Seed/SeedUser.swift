import GangwayPolicy

/// A user a ``ServerSeed`` creates, as `POST /admin/users` would.
///
/// The password is a `Secret` and the description leaves it out, so a seed can be
/// logged or printed in a test failure.
public struct SeedUser: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The user name people sign in with.
    public var username: String
    /// The password, hashed by the server like any other.
    public var password: Secret
    /// The name people see; the user name when `nil`.
    public var displayName: String?
    /// The user's attributes (``GangwayServerStorage/UserAttributes``), which choose
    /// their part of the sets that have a subset; set right after the user is created.
    public var attributes: [String: [String]]

    /// A user with the given name, password, display name and attributes.
    public init(
        _ username: String,
        password: Secret,
        displayName: String? = nil,
        attributes: [String: [String]] = [:]
    ) {
        self.username = username
        self.password = password
        self.displayName = displayName
        self.attributes = attributes
    }

    /// The user without the password.
    public var description: String { "SeedUser(\(username))" }

    /// The user without the password.
    public var debugDescription: String { description }
}
