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

    /// The PostgreSQL database of `GANGWAY_POSTGRES_URL`, if it is set and not empty
    /// (`GANGWAY_POSTGRES_URL= swift test` runs SQLite alone).
    public static var postgresqlFromEnvironment: TestDatabase? {
        ProcessInfo.processInfo.environment[environmentVariable].flatMap { $0.isEmpty ? nil : .postgresql(url: $0) }
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

    /// Runs `body` with the URL of a new schema of the PostgreSQL database at `url`, for
    /// a test that opens a storage of its own, then drops the schema, whether `body`
    /// returned or threw. One a killed test process leaves is dropped by a later one.
    public static func withNewPostgresSchema<Result>(
        of url: String,
        _ body: (_ url: String) async throws -> Result
    ) async throws -> Result {
        let (schemaURL, schema) = newPostgresSchema(of: url)
        do {
            let result = try await body(schemaURL)
            await TestLeftovers.drop(schema: schema, url: url)
            return result
        } catch {
            await TestLeftovers.drop(schema: schema, url: url)
            throw error
        }
    }

    private static func newPostgresSchema(of url: String) -> (url: String, schema: String) {
        let schema = TestLeftovers.newSchema()
        return (url + (url.contains("?") ? "&" : "?") + "schema=\(schema)", schema)
    }
}
