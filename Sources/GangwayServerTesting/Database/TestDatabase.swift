import Foundation

/// Where a ``TestServer`` keeps its data: SQLite in its temporary directory, or a fresh
/// schema of a PostgreSQL database.
public enum TestDatabase: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// SQLite in the server's temporary directory.
    case sqlite
    /// A fresh, empty schema (`test_…`) of the PostgreSQL database at `url`
    /// (`postgres://user:password@host:5432/db`), made at the server's first start.
    case postgresql(url: String)

    /// The environment variable that names the PostgreSQL database tests may use.
    public static let environmentVariable = "GANGWAY_POSTGRES_URL"

    /// The PostgreSQL database of `GANGWAY_POSTGRES_URL`, if it is set.
    public static var postgresqlFromEnvironment: TestDatabase? {
        ProcessInfo.processInfo.environment[environmentVariable].map { .postgresql(url: $0) }
    }

    /// The databases a test should run against: SQLite always, PostgreSQL when
    /// `GANGWAY_POSTGRES_URL` names one (CI sets it).
    public static var available: [TestDatabase] {
        [.sqlite] + (postgresqlFromEnvironment.map { [$0] } ?? [])
    }

    /// A short name for test output, without the URL (which may hold a password).
    public var name: String {
        switch self {
        case .sqlite: "sqlite"
        case .postgresql: "postgresql"
        }
    }

    /// The short name: a test failure or a log line never shows the URL's password.
    public var description: String { name }

    /// The short name, as ``description``.
    public var debugDescription: String { name }

    /// A new schema no other server uses (`TestLeftovers`), and the URL that names it;
    /// `nil` for SQLite.
    func freshPostgresSchema() -> (url: String, schema: String)? {
        switch self {
        case .sqlite: nil
        case .postgresql(let url): Self.newPostgresSchema(of: url)
        }
    }

    /// A new schema of the PostgreSQL database at `url`, and the URL that names it, for
    /// a test that opens a storage of its own; drop it with ``dropPostgresSchema(_:of:)``.
    /// One a test process leaves (killed, or it failed first) is dropped by a later
    /// test process once this one has ended.
    public static func newPostgresSchema(of url: String) -> (url: String, schema: String) {
        let schema = TestLeftovers.newSchema()
        return (url + (url.contains("?") ? "&" : "?") + "schema=\(schema)", schema)
    }

    /// Drops a schema ``newPostgresSchema(of:)`` gave, with everything in it.
    public static func dropPostgresSchema(_ schema: String, of url: String) async {
        await TestLeftovers.drop(schema: schema, url: url)
    }
}
