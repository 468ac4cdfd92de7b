/// A user a ``ServerSeed`` creates, as `POST /admin/users` would.
///
/// Its description leaves the password out, so a seed can be logged or printed in a
/// test failure.
public struct SeedUser: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The user name people sign in with.
    public var username: String
    /// The password, hashed by the server like any other.
    public var password: String
    /// The name people see; the user name when `nil`.
    public var displayName: String?

    /// A user with the given name, password and display name.
    public init(_ username: String, password: String, displayName: String? = nil) {
        self.username = username
        self.password = password
        self.displayName = displayName
    }

    /// The user without the password.
    public var description: String { "SeedUser(\(username))" }

    /// The user without the password.
    public var debugDescription: String { description }
}
