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

    /// The PostgreSQL URL of a new schema no other server uses; `nil` for SQLite.
    func freshPostgresURL() -> String? {
        switch self {
        case .sqlite:
            return nil
        case .postgresql(let url):
            let schema = "test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
            return url + (url.contains("?") ? "&" : "?") + "schema=\(schema)"
        }
    }
}
