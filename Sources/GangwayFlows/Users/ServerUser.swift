/// Who signed in on the server: what authentication steps put into the context so the
/// user registry can tell users apart.
///
/// The server user ID never reaches the disk as it is: the registry keeps a keyed hash of
/// it (see ``UserRegistry``).
public struct ServerUser: Sendable, Hashable {
    /// The server's ID for the user, for example the user name.
    public var id: String
    /// The name to show in the user picker.
    public var displayName: String

    public init(id: String, displayName: String) {
        self.id = id
        self.displayName = displayName
    }
}

extension FlowInfoKey where Value == ServerUser {
    /// The server user an authentication step signed in.
    public static var serverUser: Self { Self("gangway.serverUser") }
}
