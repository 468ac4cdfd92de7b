import Foundation
import GangwayProtocol

/// The tables both databases share, and the row encoding both use.
///
/// Dates are whole milliseconds since 1970 in a 64-bit integer, app settings the JSON of
/// ``StoredAppSettings`` with its version beside it, and entity fields the JSON of a
/// string dictionary, so a row means the same in SQLite and PostgreSQL.
enum ServerSchema {
    static func version1(_ dialect: StorageKind) -> [String] {
        let blob = dialect == .sqlite ? "BLOB" : "BYTEA"
        let bool = dialect == .sqlite ? "INTEGER" : "BOOLEAN"
        let serial = dialect == .sqlite ? "INTEGER PRIMARY KEY AUTOINCREMENT" : "BIGSERIAL PRIMARY KEY"
        return [
            "CREATE TABLE secrets (name TEXT PRIMARY KEY, value \(blob) NOT NULL)",
            """
            CREATE TABLE apps (id TEXT PRIMARY KEY, name TEXT NOT NULL, minimum_version TEXT,
                settings TEXT NOT NULL, created_at BIGINT NOT NULL)
            """,
            "CREATE TABLE app_domains (domain TEXT PRIMARY KEY, app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE)",
            """
            CREATE TABLE users (username TEXT PRIMARY KEY, display_name TEXT NOT NULL, password_hash TEXT NOT NULL,
                blocked \(bool) NOT NULL, created_at BIGINT NOT NULL)
            """,
            """
            CREATE TABLE sessions (token_hash \(blob) PRIMARY KEY, app_id TEXT NOT NULL, username TEXT NOT NULL,
                device_id TEXT NOT NULL, created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL, revoked \(bool) NOT NULL)
            """,
            "CREATE INDEX sessions_by_user ON sessions (username, app_id, device_id)",
            """
            CREATE TABLE sign_in_failures (key TEXT PRIMARY KEY, count INTEGER NOT NULL,
                first_failure_at BIGINT NOT NULL, blocked_until BIGINT)
            """,
            """
            CREATE TABLE devices (registration_id TEXT PRIMARY KEY, app_id TEXT NOT NULL, username TEXT NOT NULL,
                device_id TEXT NOT NULL, device_name TEXT NOT NULL, platform TEXT NOT NULL, app_version TEXT NOT NULL,
                status TEXT NOT NULL, status_changed_at BIGINT NOT NULL, recovery_secret \(blob) NOT NULL,
                registered_at BIGINT NOT NULL, last_contact_at BIGINT, UNIQUE (app_id, username, device_id))
            """,
            """
            CREATE TABLE logs (id \(serial), app_id TEXT NOT NULL, username TEXT NOT NULL, device_id TEXT NOT NULL,
                time BIGINT NOT NULL, level TEXT NOT NULL, message TEXT NOT NULL, source TEXT, received_at BIGINT NOT NULL)
            """,
            "CREATE INDEX logs_by_app ON logs (app_id, id)",
        ]
    }

    /// The app's data (entities), added after the first release.
    static func version2(_ dialect: StorageKind) -> [String] {
        [
            """
            CREATE TABLE entities (app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
                entity_set TEXT NOT NULL, id TEXT NOT NULL, fields TEXT NOT NULL, version BIGINT NOT NULL,
                updated_at BIGINT NOT NULL, updated_by TEXT NOT NULL, PRIMARY KEY (app_id, entity_set, id))
            """
        ]
    }

    /// Device cookies, and sign-in attempts counted when let through rather than when
    /// failed (the rows of the old table meant something else; they are dropped).
    static func version3(_ dialect: StorageKind) -> [String] {
        let blob = dialect == .sqlite ? "BLOB" : "BYTEA"
        return [
            "DROP TABLE sign_in_failures",
            """
            CREATE TABLE sign_in_attempts (key TEXT PRIMARY KEY, count INTEGER NOT NULL,
                window_start BIGINT NOT NULL, blocked_until BIGINT)
            """,
            """
            CREATE TABLE device_cookies (token_hash \(blob) PRIMARY KEY, username TEXT NOT NULL,
                created_at BIGINT NOT NULL)
            """,
        ]
    }

    /// Offline changes: the version at which each field of an entity was last set, and
    /// every change the server ended, under its ID, with its result (a change's sequence
    /// number is recorded once per registration; a reused one is recorded without it).
    /// Changes are listed in the order they were recorded: by SQLite's rowid, or by
    /// PostgreSQL's `position`.
    static func version4(_ dialect: StorageKind) -> [String] {
        [
            "ALTER TABLE entities ADD COLUMN field_versions TEXT",
            """
            CREATE TABLE changes (change_id TEXT PRIMARY KEY, \(dialect == .postgresql ? "position BIGSERIAL, " : "")
                app_id TEXT NOT NULL, registration_id TEXT NOT NULL,
                sequence BIGINT, author TEXT NOT NULL, carrier TEXT NOT NULL, entity_set TEXT NOT NULL,
                entity_id TEXT NOT NULL, outcome TEXT NOT NULL, result TEXT NOT NULL, received_at BIGINT NOT NULL,
                UNIQUE (registration_id, sequence))
            """,
            "CREATE INDEX changes_by_app ON changes (app_id)",
        ]
    }

    /// The key each registration's user signs offline changes with.
    static func version5(_ dialect: StorageKind) -> [String] {
        ["ALTER TABLE devices ADD COLUMN change_key \(dialect == .sqlite ? "BLOB" : "BYTEA")"]
    }

    /// An app's authentication (``AppAuthentication``, as JSON; `NULL`: basic).
    static func version6(_ dialect: StorageKind) -> [String] {
        ["ALTER TABLE apps ADD COLUMN authentication TEXT"]
    }

    /// OAuth 2.0: device authorization grants (RFC 8628) and refresh tokens, each kept
    /// as the SHA-256 of what the device holds.
    static func version7(_ dialect: StorageKind) -> [String] {
        let blob = dialect == .sqlite ? "BLOB" : "BYTEA"
        let bool = dialect == .sqlite ? "INTEGER" : "BOOLEAN"
        return [
            """
            CREATE TABLE oauth_device_grants (device_code_hash \(blob) PRIMARY KEY, user_code TEXT NOT NULL UNIQUE,
                app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE, device_id TEXT NOT NULL,
                created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL, interval_seconds INTEGER NOT NULL,
                last_polled_at BIGINT, status TEXT NOT NULL, username TEXT)
            """,
            """
            CREATE TABLE refresh_tokens (token_hash \(blob) PRIMARY KEY, family_id TEXT NOT NULL,
                app_id TEXT NOT NULL, username TEXT NOT NULL, device_id TEXT NOT NULL, session_hash \(blob) NOT NULL,
                created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL, used_at BIGINT, revoked \(bool) NOT NULL)
            """,
            "CREATE INDEX refresh_tokens_by_family ON refresh_tokens (family_id)",
            "CREATE INDEX refresh_tokens_by_user ON refresh_tokens (username)",
        ]
    }

    /// OAuth 2.0: authorization codes (RFC 6749 §4.1, with PKCE), kept as their SHA-256.
    static func version8(_ dialect: StorageKind) -> [String] {
        let blob = dialect == .sqlite ? "BLOB" : "BYTEA"
        return [
            """
            CREATE TABLE oauth_authorization_codes (code_hash \(blob) PRIMARY KEY,
                app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE, username TEXT NOT NULL,
                device_id TEXT NOT NULL, redirect_uri TEXT NOT NULL, code_challenge TEXT NOT NULL, nonce TEXT,
                created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL, redeemed_at BIGINT, family_id TEXT)
            """
        ]
    }

    /// Federation to an app's OpenID Connect provider: who each provider's subject is
    /// here, the sign-ins sent to a provider and not back yet, and what a provider
    /// granted (its refresh token sealed under the server's key).
    static func version9(_ dialect: StorageKind) -> [String] {
        let blob = dialect == .sqlite ? "BLOB" : "BYTEA"
        return [
            """
            CREATE TABLE identity_links (issuer TEXT NOT NULL, subject TEXT NOT NULL,
                username TEXT NOT NULL REFERENCES users(username) ON DELETE CASCADE, created_at BIGINT NOT NULL,
                PRIMARY KEY (issuer, subject))
            """,
            "CREATE INDEX identity_links_by_user ON identity_links (username)",
            """
            CREATE TABLE federated_sign_ins (state_hash \(blob) PRIMARY KEY,
                app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE, browser_hash \(blob) NOT NULL,
                nonce TEXT NOT NULL, code_verifier TEXT NOT NULL, origin TEXT NOT NULL,
                created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL)
            """,
            """
            CREATE TABLE provider_grants (origin_hash \(blob) PRIMARY KEY, family_id TEXT UNIQUE,
                app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE, username TEXT NOT NULL,
                issuer TEXT NOT NULL, sealed_refresh_token \(blob), access_expires_at BIGINT NOT NULL,
                created_at BIGINT NOT NULL)
            """,
        ]
    }

    /// Every migration, oldest first; a database runs those it has not run yet.
    static func migrations(_ dialect: StorageKind) -> [Migration] {
        [
            version1, version2, version3, version4, version5, version6, version7, version8, version9, version10,
            version11, version12, version13, version14, version15, version16, version17, version18, version19,
            version20, version21, version22, version23, version24, version25, version26, version27,
        ].enumerated().map { index, statements in
            Migration(name: "v\(index + 1)", statements: statements(dialect))
        }
    }

    /// The column changes are listed in the order they were recorded by: SQLite's rowid,
    /// PostgreSQL's `position` (see ``version4(_:)``).
    static func changeOrder(_ dialect: StorageKind) -> String {
        dialect == .sqlite ? "rowid" : "position"
    }

    /// Log retention per user and per app reads a user's newest entries over all their
    /// devices; who created each entity (rows from before are no one's) bounds the
    /// creations one person may make in a set.
    static func version10(_ dialect: StorageKind) -> [String] {
        [
            "CREATE INDEX logs_by_user ON logs (app_id, username, id)",
            "ALTER TABLE entities ADD COLUMN created_by TEXT",
            "CREATE INDEX entities_by_creator ON entities (app_id, entity_set, created_by)",
        ]
    }

    /// The operator's console: operators (a bcrypt hash of the password, the TOTP secret
    /// sealed under the server key, the last time step a code was taken at, and a pending
    /// enrolment's link as its SHA-256), their console sessions (the SHA-256 of the
    /// cookie), and the append-only audit of what operators and the admin token did.
    static func version11(_ dialect: StorageKind) -> [String] {
        let blob = dialect == .sqlite ? "BLOB" : "BYTEA"
        let serial = dialect == .sqlite ? "INTEGER PRIMARY KEY AUTOINCREMENT" : "BIGSERIAL PRIMARY KEY"
        return [
            """
            CREATE TABLE operators (name TEXT PRIMARY KEY, role TEXT NOT NULL, password_hash TEXT,
                totp_secret \(blob), last_totp_step BIGINT, enrolment_hash \(blob) UNIQUE,
                enrolment_expires_at BIGINT, created_at BIGINT NOT NULL)
            """,
            """
            CREATE TABLE operator_sessions (token_hash \(blob) PRIMARY KEY,
                operator TEXT NOT NULL REFERENCES operators(name) ON DELETE CASCADE,
                created_at BIGINT NOT NULL, last_seen_at BIGINT NOT NULL)
            """,
            """
            CREATE TABLE audit_events (id \(serial), at BIGINT NOT NULL, actor TEXT NOT NULL, via TEXT NOT NULL,
                action TEXT NOT NULL, target TEXT, address TEXT)
            """,
        ]
    }

    /// The overview: counts per app, kind and hour (``ActivityKind``); blocked users and
    /// the registrations longest out of contact found by an index, not by reading every
    /// row; an app's registrations paged by user.
    static func version12(_ dialect: StorageKind) -> [String] {
        [
            """
            CREATE TABLE activity (app_id TEXT NOT NULL, kind TEXT NOT NULL, bucket BIGINT NOT NULL,
                count BIGINT NOT NULL, PRIMARY KEY (app_id, kind, bucket))
            """,
            "CREATE INDEX activity_by_bucket ON activity (bucket)",
            "CREATE INDEX users_blocked ON users (username) WHERE blocked",
            "CREATE INDEX devices_by_contact ON devices (app_id, status, last_contact_at)",
            "CREATE INDEX devices_by_user ON devices (app_id, username, registration_id)",
        ]
    }

    /// Operators who sign in to the console through an OpenID Connect provider: a
    /// provider's subject is one operator at most.
    static func version13(_ dialect: StorageKind) -> [String] {
        [
            """
            CREATE TABLE operator_identities (issuer TEXT NOT NULL, subject TEXT NOT NULL,
                operator TEXT NOT NULL REFERENCES operators(name) ON DELETE CASCADE, created_at BIGINT NOT NULL,
                PRIMARY KEY (issuer, subject))
            """,
            "CREATE INDEX operator_identities_by_operator ON operator_identities (operator)",
        ]
    }

    /// Destinations: an app's backends, reached by its devices through the server (a fixed
    /// credential sealed under the server key), and the requests forwarded to each, counted
    /// per hour and status.
    static func version14(_ dialect: StorageKind) -> [String] {
        let blob = dialect == .sqlite ? "BLOB" : "BYTEA"
        return [
            """
            CREATE TABLE destinations (app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE, name TEXT NOT NULL,
                url TEXT NOT NULL, authentication TEXT NOT NULL, credential_header TEXT, credential \(blob),
                created_at BIGINT NOT NULL, PRIMARY KEY (app_id, name))
            """,
            """
            CREATE TABLE destination_requests (app_id TEXT NOT NULL, destination TEXT NOT NULL, status INTEGER NOT NULL,
                bucket BIGINT NOT NULL, count BIGINT NOT NULL, PRIMARY KEY (app_id, destination, bucket, status))
            """,
        ]
    }

    /// The audit says what an action changed (`status: active → locked`).
    static func version15(_ dialect: StorageKind) -> [String] {
        ["ALTER TABLE audit_events ADD COLUMN detail TEXT"]
    }

    /// A refresh token records the client that spent it (a hash of its address), so the
    /// same client's second refresh at once is answered rather than taken for a theft.
    static func version16(_ dialect: StorageKind) -> [String] {
        ["ALTER TABLE refresh_tokens ADD COLUMN used_from \(dialect == .sqlite ? "BLOB" : "BYTEA")"]
    }

    /// A provider's person is linked to a user and to an operator in one table, one kind
    /// of link each: the user's and the operator's links move into it, and their tables
    /// go. Each kind keeps its own reference, so removing a user or an operator still
    /// removes their links.
    static func version17(_ dialect: StorageKind) -> [String] {
        [
            """
            CREATE TABLE identities (kind TEXT NOT NULL, issuer TEXT NOT NULL, subject TEXT NOT NULL,
                username TEXT REFERENCES users(username) ON DELETE CASCADE,
                operator TEXT REFERENCES operators(name) ON DELETE CASCADE, created_at BIGINT NOT NULL,
                PRIMARY KEY (kind, issuer, subject),
                CHECK ((kind = 'user' AND username IS NOT NULL AND operator IS NULL)
                    OR (kind = 'operator' AND operator IS NOT NULL AND username IS NULL)))
            """,
            "CREATE INDEX identities_by_user ON identities (username)",
            "CREATE INDEX identities_by_operator ON identities (operator)",
            """
            INSERT INTO identities (kind, issuer, subject, username, created_at)
            SELECT 'user', issuer, subject, username, created_at FROM identity_links
            """,
            """
            INSERT INTO identities (kind, issuer, subject, operator, created_at)
            SELECT 'operator', issuer, subject, operator, created_at FROM operator_identities
            """,
            "DROP TABLE identity_links",
            "DROP TABLE operator_identities",
        ]
    }

    /// App settings in a shape storage owns (``StoredAppSettings``), with its version: the
    /// rows from before hold version 1, the API's field names of that day.
    static func version18(_ dialect: StorageKind) -> [String] {
        ["ALTER TABLE apps ADD COLUMN settings_version BIGINT NOT NULL DEFAULT 1"]
    }

    /// Each entity set's change log: every write of an entity gives it the set's next
    /// position (`entity_sets.last_position`, taken inside the write's transaction, so
    /// positions become visible in the order they were given), and a removed entity
    /// stays as a tombstone (`removed_at`) at its own position until the removals are
    /// purged, past `purged_through`. The set also counts the entities it holds
    /// (`live_count`), so a creation checks the set's limit without counting its rows.
    /// The entities from before are numbered in the order of their IDs.
    static func version19(_ dialect: StorageKind) -> [String] {
        [
            """
            CREATE TABLE entity_sets (app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
                entity_set TEXT NOT NULL, last_position BIGINT NOT NULL, purged_through BIGINT NOT NULL DEFAULT 0,
                live_count BIGINT NOT NULL DEFAULT 0, PRIMARY KEY (app_id, entity_set))
            """,
            "ALTER TABLE entities ADD COLUMN position BIGINT NOT NULL DEFAULT 0",
            "ALTER TABLE entities ADD COLUMN removed_at BIGINT",
            """
            UPDATE entities SET position = (SELECT COUNT(*) FROM entities AS earlier
                WHERE earlier.app_id = entities.app_id AND earlier.entity_set = entities.entity_set
                    AND earlier.id <= entities.id)
            """,
            """
            INSERT INTO entity_sets (app_id, entity_set, last_position, live_count)
            SELECT app_id, entity_set, COUNT(*), COUNT(*) FROM entities GROUP BY app_id, entity_set
            """,
            "CREATE UNIQUE INDEX entities_by_position ON entities (app_id, entity_set, position)",
            "CREATE INDEX entities_removed ON entities (removed_at) WHERE removed_at IS NOT NULL",
        ]
    }

    /// Each entity set's schema (``EntitySchema``, as JSON), checked by every write of the
    /// set inside its transaction; `NULL` for a set without one.
    static func version20(_ dialect: StorageKind) -> [String] {
        ["ALTER TABLE entity_sets ADD COLUMN schema TEXT"]
    }

    /// Per-user subsets of entity sets: each user's attributes (JSON, the values each
    /// lists); each entity's value of its set's subset field (`subset_key`, kept by every
    /// write, and by a tombstone, so a removal reaches those who had the entity); and the
    /// moves of entities from one subset value to another (`entity_moves`), each at the
    /// set's position of the write that moved it, so a reader of the old value removes
    /// it. Moves are forgotten with the removals (``ServerStorage/purgeRemovals(of:before:)``).
    static func version21(_ dialect: StorageKind) -> [String] {
        [
            "ALTER TABLE users ADD COLUMN attributes TEXT NOT NULL DEFAULT '{}'",
            "ALTER TABLE entities ADD COLUMN subset_key TEXT",
            """
            CREATE TABLE entity_moves (app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
                entity_set TEXT NOT NULL, position BIGINT NOT NULL, id TEXT NOT NULL, old_key TEXT NOT NULL,
                new_key TEXT, moved_at BIGINT NOT NULL, PRIMARY KEY (app_id, entity_set, position))
            """,
            "CREATE INDEX entity_moves_by_time ON entity_moves (moved_at)",
        ]
    }

    /// Ingest batches (``ServerStorage/ingest(_:into:of:batch:limit:by:at:)``): where each
    /// stands, so a part sent again is applied once, and what it refused.
    static func version22(_ dialect: StorageKind) -> [String] {
        [
            """
            CREATE TABLE ingest_batches (app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
                entity_set TEXT NOT NULL, batch_id TEXT NOT NULL, lines_done BIGINT NOT NULL, written BIGINT NOT NULL,
                removed BIGINT NOT NULL, refused_count BIGINT NOT NULL, refused TEXT NOT NULL,
                updated_at BIGINT NOT NULL, PRIMARY KEY (app_id, entity_set, batch_id))
            """
        ]
    }

    /// An ingest batch keeps the digest of its lines done (``IngestPart``), so its ID sent
    /// again with other rows is refused.
    static func version23(_ dialect: StorageKind) -> [String] {
        ["ALTER TABLE ingest_batches ADD COLUMN digest TEXT"]
    }

    /// Data sources (``DataSourceRecord``): an entity set read from a backend's OData
    /// service, and the backend's last version of each entity read (`pulled_entities`),
    /// which a later read merges against (``ServerStorage/pull(_:into:of:run:holdingUntil:limit:by:at:)``);
    /// and the devices' changes to sets whose source delivers them, waiting for the
    /// backend to decide them (`deliveries`, ``DeliveryRecord``), in the order they came.
    static func version24(_ dialect: StorageKind) -> [String] {
        let bool = dialect == .sqlite ? "INTEGER" : "BOOLEAN"
        return [
            """
            CREATE TABLE data_sources (app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
                entity_set TEXT NOT NULL, destination TEXT NOT NULL, path TEXT NOT NULL, key_property TEXT NOT NULL,
                every BIGINT, delta_link TEXT, next_run_at BIGINT, full_requested \(bool) NOT NULL,
                run BIGINT NOT NULL DEFAULT 0, running_until BIGINT, last_run TEXT, delivers \(bool) NOT NULL,
                created_at BIGINT NOT NULL, PRIMARY KEY (app_id, entity_set))
            """,
            "CREATE INDEX data_sources_due ON data_sources (next_run_at) WHERE next_run_at IS NOT NULL",
            """
            CREATE TABLE pulled_entities (app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
                entity_set TEXT NOT NULL, id TEXT NOT NULL, run BIGINT NOT NULL, fields TEXT NOT NULL,
                PRIMARY KEY (app_id, entity_set, id))
            """,
            """
            CREATE TABLE deliveries (change_id TEXT PRIMARY KEY, app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
                entity_set TEXT NOT NULL, entity_id TEXT NOT NULL, change TEXT NOT NULL, carrier TEXT NOT NULL,
                received_at BIGINT NOT NULL, queued BIGINT NOT NULL, attempts BIGINT NOT NULL,
                next_attempt_at BIGINT NOT NULL, running_until BIGINT, parked \(bool) NOT NULL, last_error TEXT)
            """,
            "CREATE INDEX deliveries_by_entity ON deliveries (app_id, entity_set, entity_id, queued)",
            "CREATE INDEX deliveries_due ON deliveries (next_attempt_at)",
        ]
    }

    /// Who created an entity is indexed only where a person did: the entities an ingest,
    /// a data source or the admin writes are no one's, and a million of them would each
    /// add an entry no look-up reads (a creator's count names the creator).
    static func version25(_ dialect: StorageKind) -> [String] {
        [
            "DROP INDEX entities_by_creator",
            "CREATE INDEX entities_by_creator ON entities (app_id, entity_set, created_by) WHERE created_by IS NOT NULL",
        ]
    }

    /// The server's signing keys (``SigningKeyRecord``), each sealed under the server key:
    /// several per purpose, so a new one can be published before it signs and an old one
    /// stay published after.
    static func version26(_ dialect: StorageKind) -> [String] {
        let blob = dialect == .sqlite ? "BLOB" : "BYTEA"
        return [
            """
            CREATE TABLE signing_keys (purpose TEXT NOT NULL, kid TEXT NOT NULL, generation BIGINT NOT NULL,
                sealed_key \(blob) NOT NULL, created_at BIGINT NOT NULL, signs_from BIGINT NOT NULL,
                published_until BIGINT, PRIMARY KEY (purpose, kid), UNIQUE (purpose, generation))
            """
        ]
    }

    /// The activation keys' endorsements (``SigningKeyRecord/endorsement``): each activation
    /// key after the first is signed by the one before, so devices that pinned an earlier
    /// key can follow a rotation.
    static func version27(_ dialect: StorageKind) -> [String] {
        ["ALTER TABLE signing_keys ADD COLUMN endorsement \(dialect == .sqlite ? "BLOB" : "BYTEA")"]
    }

    static func encode(change: Change) throws(StorageError) -> String {
        try json(change, "a change to deliver")
    }

    static func decodeChange(_ text: String) throws(StorageError) -> Change {
        try value(Change.self, from: text, "a change to deliver")
    }

    static func encode(run: DataSourceRun) throws(StorageError) -> String {
        try json(run, "a data source's last read")
    }

    static func decodeRun(_ text: String) throws(StorageError) -> DataSourceRun {
        try value(DataSourceRun.self, from: text, "a data source's last read")
    }

    static func encode(refusals: [IngestRefusal]) throws(StorageError) -> String {
        try json(refusals, "ingest refusals")
    }

    static func decodeRefusals(_ text: String) throws(StorageError) -> [IngestRefusal] {
        try value([IngestRefusal].self, from: text, "ingest refusals")
    }

    static func encode(fieldVersions: [String: Int64]) -> String {
        FlatJSON.text(fieldVersions)
    }

    static func decodeFieldVersions(_ text: String?) throws(StorageError) -> [String: Int64] {
        guard let text else { return [:] }
        guard let versions = FlatJSON.integers(text) else {
            throw StorageError(.corrupt, "stored field versions cannot be read")
        }
        return versions
    }

    static func encode(result: ChangeResult) throws(StorageError) -> String {
        if let plain = result.plainJSON { return String(decoding: plain, as: UTF8.self) }
        return try json(result, "change result")
    }

    static func decodeResult(_ text: String) throws(StorageError) -> ChangeResult {
        try value(ChangeResult.self, from: text, "change result")
    }

    /// The `apps.settings` column for `settings`, in the shape of ``StoredAppSettings/version``.
    static func encode(_ settings: Components.Schemas.AppSettings) throws(StorageError) -> String {
        try json(StoredAppSettings(settings), "app settings")
    }

    /// An app's authentication column: `NULL` for basic, as every app was before it.
    static func encode(authentication: AppAuthentication) throws(StorageError) -> String? {
        authentication == .basic ? nil : try json(authentication, "app authentication")
    }

    static func decodeAuthentication(_ text: String?) throws(StorageError) -> AppAuthentication {
        guard let text else { return .basic }
        return try value(AppAuthentication.self, from: text, "app authentication")
    }

    /// The settings an `apps.settings` column holds in the shape of `version`.
    static func decodeSettings(_ text: String, version: Int64) throws(StorageError) -> Components.Schemas.AppSettings {
        guard version == StoredAppSettings.version else {
            throw StorageError(
                .corrupt,
                "stored app settings are of version \(version); this server reads version \(StoredAppSettings.version)"
            )
        }
        return try value(StoredAppSettings.self, from: text, "app settings").settings()
    }

    static func encode(fields: [String: String]) -> String {
        FlatJSON.text(fields)
    }

    static func decodeFields(_ text: String) throws(StorageError) -> [String: String] {
        guard let fields = FlatJSON.strings(text) else {
            throw StorageError(.corrupt, "stored entity fields cannot be read")
        }
        return fields
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()

    /// The JSON text stored for `value`, its keys sorted.
    private static func json<Value: Encodable>(_ value: Value, _ what: String) throws(StorageError) -> String {
        do {
            return String(decoding: try encoder.encode(value), as: UTF8.self)
        } catch {
            throw StorageError(.corrupt, "\(what) cannot be encoded")
        }
    }

    private static func value<Value: Decodable>(
        _ type: Value.Type,
        from text: String,
        _ what: String
    ) throws(StorageError) -> Value {
        do {
            return try JSONDecoder().decode(type, from: Data(text.utf8))
        } catch {
            throw StorageError(.corrupt, "stored \(what) cannot be read")
        }
    }
}

extension Date {
    /// Whole milliseconds since 1970, as stored.
    var milliseconds: Int64 { Int64((timeIntervalSince1970 * 1000).rounded(.down)) }

    init(milliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}
