import Crypto
import Foundation
import GRDB

extension Outbox {
    /// The outbox file's schema, step by step: each step runs once, in order, and an
    /// outbox kept by an earlier version is brought up to date where it stands.
    static func migrator(tagKey: SymmetricKey) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE author (
                        registration_id TEXT PRIMARY KEY NOT NULL,
                        author TEXT NOT NULL,
                        next_sequence INTEGER NOT NULL,
                        answer_key BLOB NOT NULL
                    );
                    CREATE TABLE pending (
                        position INTEGER PRIMARY KEY AUTOINCREMENT,
                        change_id TEXT NOT NULL UNIQUE,
                        registration_id TEXT NOT NULL,
                        author TEXT NOT NULL,
                        entity_set TEXT NOT NULL,
                        entity_id TEXT NOT NULL,
                        sequence INTEGER NOT NULL,
                        sealed BLOB NOT NULL,
                        held INTEGER NOT NULL DEFAULT 0,
                        recorded_at INTEGER NOT NULL
                    );
                    CREATE INDEX pending_by_entity ON pending (registration_id, entity_set, entity_id);
                    CREATE TABLE answer (
                        change_id TEXT PRIMARY KEY NOT NULL,
                        registration_id TEXT NOT NULL,
                        sealed BLOB NOT NULL,
                        answered_at INTEGER NOT NULL
                    );
                    """
            )
        }
        // Answers kept by one settle for one author share a key, sealed to the author
        // once (HPKE's exporter): one key agreement per batch instead of one per answer.
        migrator.registerMigration("v2") { db in
            try db.execute(
                sql: """
                    CREATE TABLE answer_key (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        registration_id TEXT NOT NULL,
                        encapsulated BLOB NOT NULL
                    );
                    ALTER TABLE answer ADD COLUMN key_id INTEGER REFERENCES answer_key (id);
                    """
            )
        }
        // The author's name and the entity give way to the entity's keyed tag; rows kept
        // before are tagged where they stand.
        migrator.registerMigration("v3") { db in
            try db.execute(
                sql: """
                    CREATE TABLE pending_tagged (
                        position INTEGER PRIMARY KEY AUTOINCREMENT,
                        change_id TEXT NOT NULL UNIQUE,
                        registration_id TEXT NOT NULL,
                        entity_tag TEXT NOT NULL,
                        sequence INTEGER NOT NULL,
                        sealed BLOB NOT NULL,
                        held INTEGER NOT NULL DEFAULT 0,
                        recorded_at INTEGER NOT NULL
                    )
                    """
            )
            let insert = try db.makeStatement(
                sql: """
                    INSERT INTO pending_tagged (position, change_id, registration_id, entity_tag, sequence, sealed,
                        held, recorded_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """
            )
            for row in try Row.fetchAll(db, sql: "SELECT * FROM pending ORDER BY position") {
                let tag = entityTag(entitySet: row["entity_set"], entityID: row["entity_id"], key: tagKey)
                try insert.execute(arguments: [
                    row["position"], row["change_id"], row["registration_id"], tag, row["sequence"], row["sealed"],
                    row["held"], row["recorded_at"],
                ])
            }
            try db.execute(
                sql: """
                    DROP TABLE pending;
                    ALTER TABLE pending_tagged RENAME TO pending;
                    CREATE INDEX pending_by_entity ON pending (registration_id, entity_tag);
                    ALTER TABLE author DROP COLUMN author;
                    """
            )
        }
        // The check value of the key the changes are tagged with, to tell a lost key. From
        // here `held` is 0 (ready), 1 (behind a refusal of its entity) or 2 (behind a
        // refusal of an unfiled change, until the author's record files them again).
        migrator.registerMigration("v4") { db in
            try db.execute(
                sql: """
                    CREATE TABLE tag_key (check_value BLOB NOT NULL);
                    CREATE INDEX pending_unfiled ON pending (registration_id, position) WHERE entity_tag = '';
                    """
            )
        }
        return migrator
    }
}
