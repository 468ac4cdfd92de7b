/// Why `Process.start()` did not start a program.
///
/// Equal by kind (``tooManyOpenFiles``) whatever the count, so new kinds can be added
/// without breaking a caller's `catch`.
public struct ProgramStartError: Error, Sendable, Hashable, CustomStringConvertible {
    enum Kind: Sendable, Hashable {
        case tooManyOpenFiles
    }

    let kind: Kind
    /// How many files this program had open.
    public let openFiles: Int

    init(_ kind: Kind, openFiles: Int) {
        self.kind = kind
        self.openFiles = openFiles
    }

    /// This program had more files open than Foundation's `Process` can start a program
    /// with on Linux without risking a crash (see `Process.start()`).
    public static let tooManyOpenFiles = Self(.tooManyOpenFiles, openFiles: 0)

    static func tooManyOpenFiles(_ count: Int) -> Self { Self(.tooManyOpenFiles, openFiles: count) }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.kind == rhs.kind }
    public func hash(into hasher: inout Hasher) { hasher.combine(kind) }

    public var description: String {
        switch kind {
        case .tooManyOpenFiles:
            "not starting a program with \(openFiles) files open: Foundation's Process could crash this one"
        }
    }
}
