#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why a private file or directory could not be made: the path and the system's reason.
///
/// Equal by kind (``failed``, ``notADirectory``, ``unsafe``, ``inUse``) whatever the path. The message names the
/// path and never the contents.
public struct PrivateFileError: Error, Sendable, Hashable, CustomStringConvertible {
    enum Kind: Sendable, Hashable {
        case failed
        case notADirectory
        case unsafe
        case inUse
    }

    let kind: Kind
    /// The file or directory.
    public let path: String
    /// What went wrong, for a person, with the system's error text.
    public let reason: String

    init(_ kind: Kind, path: String, reason: String) {
        self.kind = kind
        self.path = path
        self.reason = reason
    }

    /// The system refused to create, write, sync, rename or narrow it.
    public static let failed = Self(.failed, path: "", reason: "")
    /// A directory was wanted and the path is something else.
    public static let notADirectory = Self(.notADirectory, path: "", reason: "")
    /// Another account owns it, or could change it: another user can write to it (or
    /// to a directory above it), or read a secret in it; Gangway does not use it.
    public static let unsafe = Self(.unsafe, path: "", reason: "")
    /// A directory another process holds (``DirectoryLock``); the reason names it.
    public static let inUse = Self(.inUse, path: "", reason: "")

    /// A failure at `path`, with `errno`'s text appended to `what`.
    static func failed(_ path: String, _ what: String) -> Self {
        Self(.failed, path: path, reason: "\(what) (\(String(cString: strerror(errno))))")
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.kind == rhs.kind }
    public func hash(into hasher: inout Hasher) { hasher.combine(kind) }

    public var description: String { kind == .inUse ? "\(path) \(reason)" : "\(path): \(reason)" }
}
