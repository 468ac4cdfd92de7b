import Foundation

/// A fresh, empty PostgreSQL schema per test, in the database `GANGWAY_POSTGRES_URL` names.
enum PostgresTestDatabase {
    static func fresh() throws -> String {
        guard let url = ProcessInfo.processInfo.environment["GANGWAY_POSTGRES_URL"] else {
            throw FixtureError("GANGWAY_POSTGRES_URL is not set")
        }
        let schema = "test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        return url + (url.contains("?") ? "&" : "?") + "schema=\(schema)"
    }
}
