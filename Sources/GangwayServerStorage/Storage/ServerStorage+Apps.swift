import Foundation
import GangwayProtocol

extension ServerStorage {
    public func insertApp(_ app: AppRecord) async throws(StorageError) {
        try await writing(forgetting: [.key(.app(app.id))]) { () throws(StorageError) in
            let settings = try ServerSchema.encode(app.settings)
            let authentication = try ServerSchema.encode(authentication: app.authentication)
            try await queries.write(locking: []) { connection in
                try await connection.execute(
                    """
                    INSERT INTO apps (id, name, minimum_version, settings, settings_version, authentication, created_at)
                    VALUES (\(app.id), \(app.name), \(app.minimumVersion), \(settings), \(StoredAppSettings.version),
                        \(authentication), \(app.createdAt))
                    """
                )
                try await Self.replaceDomains(of: app, connection)
            }
        }
    }

    public func updateApp(_ app: AppRecord) async throws(StorageError) {
        try await writing(forgetting: [.key(.app(app.id))]) { () throws(StorageError) in
            let settings = try ServerSchema.encode(app.settings)
            let authentication = try ServerSchema.encode(authentication: app.authentication)
            try await queries.write(locking: []) { connection in
                try await connection.execute(
                    """
                    UPDATE apps SET name = \(app.name), minimum_version = \(app.minimumVersion), settings = \(settings),
                        settings_version = \(StoredAppSettings.version), authentication = \(authentication) WHERE id = \(app.id)
                    """
                )
                try await Self.replaceDomains(of: app, connection)
            }
        }
    }

    private static func replaceDomains(of app: AppRecord, _ connection: any SQLConnection) async throws {
        try await connection.execute("DELETE FROM app_domains WHERE app_id = \(app.id)")
        for domain in app.emailDomains {
            try await connection.execute("INSERT INTO app_domains (domain, app_id) VALUES (\(domain), \(app.id))")
        }
    }

    public func app(id: String) async throws(StorageError) -> AppRecord? {
        try await cached(.app(id)) { () throws(StorageError) in try await apps(where: "id = \(id)").first }
    }

    public func apps() async throws(StorageError) -> [AppRecord] {
        try await apps(where: "1 = 1")
    }

    public func app(forEmailDomain domain: String) async throws(StorageError) -> AppRecord? {
        try await apps(where: "id = (SELECT app_id FROM app_domains WHERE domain = \(domain))").first
    }

    /// The apps `condition` holds for, by ID, each with its email domains: one statement,
    /// so an app is never read with another moment's domains.
    private func apps(where condition: SQL) async throws(StorageError) -> [AppRecord] {
        let rows = try await queries.read(
            """
            SELECT a.*, d.domain
            FROM apps a LEFT JOIN app_domains d ON d.app_id = a.id
            WHERE \(condition) ORDER BY a.id, d.domain
            """
        )
        var apps: [AppRecord] = []
        for row in rows {
            let id: String = try row("id")
            let domain: String? = try row("domain")
            if let last = apps.last, last.id == id {
                if let domain { apps[apps.count - 1].emailDomains.append(domain) }
                continue
            }
            apps.append(
                AppRecord(
                    id: id,
                    name: try row("name"),
                    emailDomains: domain.map { [$0] } ?? [],
                    minimumVersion: try row("minimum_version"),
                    settings: try ServerSchema.decodeSettings(
                        try row("settings"),
                        version: try row("settings_version")
                    ),
                    authentication: try ServerSchema.decodeAuthentication(try row("authentication")),
                    createdAt: try row("created_at")
                )
            )
        }
        return apps
    }
}
