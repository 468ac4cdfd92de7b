import Testing

/// The databases a server test runs against: SQLite always, PostgreSQL when
/// `GANGWAY_POSTGRES_URL` names one (CI sets it).
public enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgresql

    public static var available: [Backend] {
        TestDatabase.postgresqlFromEnvironment == nil ? [.sqlite] : [.sqlite, .postgresql]
    }

    /// The harness's database for this backend.
    public var database: TestDatabase {
        get throws {
            switch self {
            case .sqlite: return .sqlite
            case .postgresql:
                guard let database = TestDatabase.postgresqlFromEnvironment else {
                    throw TestServerError("\(TestDatabase.environmentVariable) is not set")
                }
                return database
            }
        }
    }

    public var testDescription: String { rawValue }
}
