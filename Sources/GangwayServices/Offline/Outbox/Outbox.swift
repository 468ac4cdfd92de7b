import Crypto
import Foundation
import GRDB
import GangwayProtocol
import GangwayStore
import GangwaySystem

/// The device's queue of changes waiting for the server: one per device, shared by its
/// users, in one SQLite file (owner-only, every commit synced with `synchronous = FULL`).
///
/// - A change is signed, sealed to the server and on disk when ``record(by:entitySet:entityID:baseVersion:fields:madeAt:sealingTo:)``
///   returns; a kill after that loses nothing.
/// - Any user's session can send every pending change: each is sealed to the server,
///   so the carrier cannot read it. The file names no author and no entity: a change is
///   filed under its registration's random ID and a keyed tag of its entity (HMAC-SHA256
///   under a key of the device's key store), which tells two changes to one entity apart
///   from others and says nothing of which entity it is.
/// - A change leaves the outbox only in the transaction that keeps the server's answer
///   (``settle(_:)``), sealed to its author, who alone reads it at their next session.
/// - A refused change holds its author's later changes to the same entity back until
///   the author decides (``release(registrationID:entitySet:entityID:)``,
///   ``discard(_:)``); every other change keeps flowing.
public struct Outbox: Sendable {
    let pool: DatabasePool
    /// Seals what this outbox records, each author's run under a key held in memory.
    let sealer = ChangeSealer()
    /// The key an entity's tag is made with.
    let tagKey: SymmetricKey
    /// The wall clock an answer's arrival is recorded by.
    let now: @Sendable () -> Date
    /// How many pending changes this open found filed under a tag key the device's key
    /// store no longer has (it lost the key, and a new one was made). They wait unfiled:
    /// each goes alone and holds its author's later changes behind it, so none overtakes
    /// an earlier change to its entity, until the author's next session files them again
    /// from their own record (``refile(registrationID:changes:heldBack:)``).
    public let unfiled: Int

    /// The outbox file's name in its directory.
    public static let fileName = "outbox.sqlite"
    /// The name of the entity tags' key in the device's key store.
    public static let tagKeyName = "gangway.outbox.entity-tags"

    /// Opens the outbox in `directory`, creating both (owner-only) when missing.
    /// - Parameters:
    ///   - deviceKeys: Where the key of the entity tags is kept (made at the first
    ///     open): the device's key store, apart from the outbox file.
    ///   - now: The wall clock answers are recorded by.
    public init(
        directory: URL,
        deviceKeys: any DeviceKeyStore,
        now: @escaping @Sendable () -> Date = WallClock.now
    ) throws(OutboxError) {
        self.now = now
        let tagKey = try Self.tagKey(in: deviceKeys)
        self.tagKey = tagKey
        let url = directory.appendingPathComponent(Self.fileName)
        do {
            try PrivateFiles.makeDirectory(directory)
            try PrivateFiles.prepareDatabase(url)
        } catch {
            throw OutboxError(.ioFailure, "cannot make the outbox owner-only")
        }
        var configuration = Configuration()
        configuration.label = "gangway.outbox"
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            // What a settle or a migration removes is overwritten, not left in free pages.
            try db.execute(sql: "PRAGMA synchronous = FULL; PRAGMA secure_delete = ON")
        }
        do {
            pool = try DatabasePool(path: url.path, configuration: configuration)
            let migrator = Self.migrator(tagKey: tagKey)
            let before = try pool.read { try migrator.appliedIdentifiers($0) }
            try migrator.migrate(pool)
            unfiled = try pool.write { try Self.checkTagKey(tagKey, $0) }
            if !before.isEmpty, !before.contains("v3") {
                // The pages that held names are zeroed in the log; written home, the
                // file keeps none of them.
                // Best effort: the tagging is committed either way, and SQLite writes the
                // log home at its next checkpoint.
                _ = try? pool.writeWithoutTransaction { try $0.checkpoint(.truncate) }
            }
        } catch {
            throw OutboxError(.ioFailure, "cannot open the outbox")
        }
    }

    /// The key of the entity tags from the device's key store, made there when missing.
    private static func tagKey(in deviceKeys: any DeviceKeyStore) throws(OutboxError) -> SymmetricKey {
        do {
            if let stored = try deviceKeys.read(tagKeyName) {
                guard stored.count == 32 else { throw OutboxError(.corrupt, "the outbox's tag key is not 32 bytes") }
                return SymmetricKey(data: stored)
            }
            let key = SymmetricKey(size: .bits256)
            try deviceKeys.write(key.withUnsafeBytes { Data($0) }, for: tagKeyName)
            return key
        } catch let error as OutboxError {
            throw error
        } catch {
            throw OutboxError(.ioFailure, "cannot read or keep the outbox's tag key")
        }
    }

    /// Compares the tag key with the check value the outbox keeps of the key its changes
    /// were filed under (kept now when there is none). On a mismatch every pending change
    /// is unfiled (an empty tag) and the new key's check value kept.
    ///
    /// - Returns: How many changes were unfiled.
    private static func checkTagKey(_ key: SymmetricKey, _ db: Database) throws -> Int {
        let check = Data(HMAC<SHA256>.authenticationCode(for: tagKeyCheckInput, using: key))
        guard let kept = try Data.fetchOne(db, sql: "SELECT check_value FROM tag_key") else {
            try db.execute(sql: "INSERT INTO tag_key (check_value) VALUES (?)", arguments: [check])
            return 0
        }
        guard kept != check else { return 0 }
        try db.execute(sql: "UPDATE pending SET entity_tag = ''")
        let unfiled = db.changesCount
        try db.execute(sql: "UPDATE tag_key SET check_value = ?", arguments: [check])
        return unfiled
    }

    /// What the tag key's check value is the HMAC of.
    private static let tagKeyCheckInput = Data("gangway.outbox.tag-key-check.v1".utf8)

    /// The tag a change to `entityID` of `entitySet` is filed under: equal for one
    /// entity, and unreadable without the key.
    static func entityTag(entitySet: String, entityID: String, key: SymmetricKey) -> String {
        let input = Data(entitySet.utf8) + [0] + Data(entityID.utf8)
        return Data(HMAC<SHA256>.authenticationCode(for: input, using: key)).base64URLEncoded
    }

    /// The tag this outbox files a change to `entityID` of `entitySet` under
    /// (``PendingChange/entityTag``).
    public func entityTag(entitySet: String, entityID: String) -> String {
        Self.entityTag(entitySet: entitySet, entityID: entityID, key: tagKey)
    }

    // MARK: Recording

    /// Makes a change of `author`'s with the next sequence number of their registration,
    /// signs it, seals it to the server and records it, in one transaction.
    ///
    /// - Returns: The signed change, for the author's own store to keep a readable copy.
    @discardableResult
    public func record(
        by author: OutboxAuthor,
        entitySet: String,
        entityID: String,
        baseVersion: Int64?,
        fields: [String: String],
        madeAt: Date,
        sealingTo server: SealingPublicKey
    ) throws(OutboxError) -> SignedChange {
        try write { db in
            let next =
                try Int64.fetchOne(
                    db,
                    sql: "SELECT next_sequence FROM author WHERE registration_id = ?",
                    arguments: [author.registrationID]
                ) ?? 1
            let change = Change(
                registrationID: author.registrationID,
                author: author.name,
                sequence: next,
                entitySet: entitySet,
                entityID: entityID,
                baseVersion: baseVersion,
                fields: fields,
                madeAt: madeAt
            )
            let signed = author.signingKey.sign(change)
            let sealed = try sealer.seal(signed, registrationID: author.registrationID, to: server)
            try db.execute(
                sql: """
                    INSERT INTO author (registration_id, next_sequence, answer_key) VALUES (?, ?, ?)
                    ON CONFLICT (registration_id) DO UPDATE SET next_sequence = excluded.next_sequence,
                        answer_key = excluded.answer_key
                    """,
                arguments: [author.registrationID, next + 1, author.answerKey.x963Representation]
            )
            try db.execute(
                sql: """
                    INSERT INTO pending (change_id, registration_id, entity_tag, sequence, sealed, recorded_at)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    change.id.lowercasedText, author.registrationID,
                    entityTag(entitySet: entitySet, entityID: entityID),
                    next, sealed, Int64(change.madeAt.timeIntervalSince1970),
                ]
            )
            return signed
        }
    }

    // MARK: Sending

    /// The oldest changes ready to send, at most `limit`, of the given registrations
    /// only when `registrations` is not `nil`, without those in `excluded` (sent, and not
    /// yet settled); held changes wait.
    ///
    /// Of an author's changes to one entity, only the oldest is ready: the next goes once
    /// the server has answered it and the answer is settled, so a rejection holds the
    /// later ones (``settle(_:)``) before they are sent, even when they would have fitted
    /// in the same batch.
    public func ready(
        limit: Int = EntityLimits.changesPerUpload,
        registrations: Set<String>? = nil,
        excluding excluded: Set<UUID> = []
    ) throws(OutboxError) -> [PendingChange] {
        try read { db in
            var sql = """
                SELECT * FROM pending WHERE held = 0 AND NOT EXISTS (
                    SELECT 1 FROM pending AS earlier
                    WHERE earlier.registration_id = pending.registration_id
                        AND earlier.entity_tag = pending.entity_tag
                        AND earlier.position < pending.position)
                """
            // Rare (a lost tag key), so asked once rather than of every change. An unfiled
            // change's entity is unknown: nothing of its author's goes past it, and it goes
            // only as its author's oldest.
            if try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM pending WHERE entity_tag = '')") == true {
                sql += """
                     AND NOT EXISTS (
                        SELECT 1 FROM pending AS unfiled
                        WHERE unfiled.registration_id = pending.registration_id
                            AND unfiled.entity_tag = ''
                            AND unfiled.position < pending.position)
                    AND NOT (pending.entity_tag = '' AND EXISTS (
                        SELECT 1 FROM pending AS earlier
                        WHERE earlier.registration_id = pending.registration_id
                            AND earlier.position < pending.position))
                    """
            }
            var arguments: StatementArguments = []
            if let registrations {
                sql += " AND registration_id IN (\(databaseQuestionMarks(count: registrations.count)))"
                arguments += StatementArguments(Array(registrations))
            }
            if !excluded.isEmpty {
                sql += " AND change_id NOT IN (\(databaseQuestionMarks(count: excluded.count)))"
                arguments += StatementArguments(excluded.map { $0.lowercasedText })
            }
            sql += " ORDER BY position LIMIT ?"
            arguments += [limit]
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map(Self.pending)
        }
    }

    /// How many changes are ready to send, of the given registrations only when
    /// `registrations` is not `nil`; held changes wait.
    public func readyCount(registrations: Set<String>? = nil) throws(OutboxError) -> Int {
        try read { db in
            var sql = "SELECT COUNT(*) FROM pending WHERE held = 0"
            var arguments: StatementArguments = []
            if let registrations {
                sql += " AND registration_id IN (\(databaseQuestionMarks(count: registrations.count)))"
                arguments += StatementArguments(Array(registrations))
            }
            return try Int.fetchOne(db, sql: sql, arguments: arguments) ?? 0
        }
    }

    /// How many changes of a registration wait, held ones included.
    public func count(registrationID: String) throws(OutboxError) -> Int {
        try read { db in
            try Int.fetchOne(
                db,
                sql: "SELECT COUNT(*) FROM pending WHERE registration_id = ?",
                arguments: [registrationID]
            )
                ?? 0
        }
    }

    /// The changes of a registration that wait, held ones included, oldest first.
    public func pending(registrationID: String) throws(OutboxError) -> [PendingChange] {
        try read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT * FROM pending WHERE registration_id = ? ORDER BY position",
                arguments: [registrationID]
            ).map(Self.pending)
        }
    }

    /// Keeps the server's answers and removes the changes they end, in one transaction:
    /// each answer sealed to its author (under a key of this settle's, sealed to the
    /// author once); a refusal holds the author's later changes to the same entity. A
    /// change the outbox no longer has is skipped (it was settled already).
    public func settle(_ answers: [(change: PendingChange, answer: ChangeAnswer)]) throws(OutboxError) {
        try write { db in
            var keys: [String: (id: Int64, key: SymmetricKey)] = [:]
            for (change, answer) in answers where answer.result.outcome != .held {
                let id = change.changeID.lowercasedText
                // The tag as it stands now: a refile since the change was read may have filed it.
                guard
                    let tag = try String.fetchOne(
                        db.cachedStatement(sql: "DELETE FROM pending WHERE change_id = ? RETURNING entity_tag"),
                        arguments: [id]
                    )
                else { continue }
                if keys[change.registrationID] == nil {
                    keys[change.registrationID] = try Self.answerKey(for: change.registrationID, db)
                }
                guard let key = keys[change.registrationID] else { continue }
                let sealed = try AES.GCM.seal(
                    try answer.plainJSON ?? ChangeSeal.encoder.encode(answer),
                    using: key.key,
                    authenticating: Data(id.utf8)
                ).combined
                try db.cachedStatement(
                    sql: """
                        INSERT INTO answer (change_id, registration_id, sealed, answered_at, key_id) VALUES (?, ?, ?, ?, ?)
                        ON CONFLICT (change_id) DO NOTHING
                        """
                ).execute(arguments: [id, change.registrationID, sealed, Int64(now().timeIntervalSince1970), key.id])
                if answer.outcome == .rejected, tag.isEmpty {
                    // An unfiled change's entity is unknown: all its author's changes wait,
                    // marked as widened (2) until their record files them again.
                    try db.cachedStatement(sql: "UPDATE pending SET held = 2 WHERE registration_id = ? AND held = 0")
                        .execute(arguments: [change.registrationID])
                } else if answer.outcome == .rejected {
                    try db.cachedStatement(
                        sql: "UPDATE pending SET held = 1 WHERE registration_id = ? AND entity_tag = ?"
                    ).execute(arguments: [change.registrationID, tag])
                }
            }
        }
    }

    /// A new key for a registration's answers, sealed to its author's answer key, and
    /// recorded.
    private static func answerKey(for registrationID: String, _ db: Database) throws -> (id: Int64, key: SymmetricKey) {
        guard
            let keyBytes = try Data.fetchOne(
                db,
                sql: "SELECT answer_key FROM author WHERE registration_id = ?",
                arguments: [registrationID]
            ),
            let author = try? SealingPublicKey(x963Representation: keyBytes)
        else {
            throw OutboxError(.corrupt, "a pending change's author is not on record")
        }
        let shared = try HPKESeal.sharedKey(to: author, info: answerInfo, context: answerKeyContext)
        try db.execute(
            sql: "INSERT INTO answer_key (registration_id, encapsulated) VALUES (?, ?)",
            arguments: [registrationID, shared.encapsulated]
        )
        return (db.lastInsertedRowID, shared.key)
    }

    // MARK: The author's answers

    /// The answers kept for a registration's author, opened with their key, by change ID.
    /// They stay until ``forgetAnswers(_:)``, once the author's store holds them.
    public func answers(
        registrationID: String,
        openingWith key: SealingPrivateKey
    ) throws(OutboxError) -> [UUID: ChangeAnswer] {
        let (rows, sharedKeys) = try read { db in
            (
                try Row.fetchAll(
                    db,
                    sql: "SELECT change_id, sealed, key_id FROM answer WHERE registration_id = ?",
                    arguments: [registrationID]
                ),
                try Row.fetchAll(
                    db,
                    sql: "SELECT id, encapsulated FROM answer_key WHERE registration_id = ?",
                    arguments: [registrationID]
                )
            )
        }
        var opened: [Int64: SymmetricKey] = [:]
        for row in sharedKeys {
            guard
                let shared = try? HPKESeal.sharedKey(
                    encapsulated: row["encapsulated"],
                    with: key,
                    info: Self.answerInfo,
                    context: Self.answerKeyContext
                )
            else { throw OutboxError(.corrupt, "an answer does not open with the author's key") }
            opened[row["id"]] = shared
        }
        var answers: [UUID: ChangeAnswer] = [:]
        for row in rows {
            let text: String = row["change_id"]
            guard let id = UUID(uuidString: text) else { throw OutboxError(.corrupt, "an answer's ID") }
            do {
                let plaintext: Data
                if let keyID: Int64 = row["key_id"] {
                    guard let shared = opened[keyID] else { throw ChangeSealError.unreadable }
                    plaintext = try AES.GCM.open(
                        AES.GCM.SealedBox(combined: row["sealed"] as Data),
                        using: shared,
                        authenticating: Data(text.utf8)
                    )
                } else {
                    // Kept before answers shared a key: sealed alone.
                    plaintext = try HPKESeal.open(row["sealed"], with: key, info: Self.answerInfo)
                }
                answers[id] = try ChangeSeal.decoder.decode(ChangeAnswer.self, from: plaintext)
            } catch {
                throw OutboxError(.corrupt, "an answer does not open with the author's key")
            }
        }
        return answers
    }

    /// Drops answers the author's store now holds, and the keys no answer needs.
    public func forgetAnswers(_ changeIDs: [UUID]) throws(OutboxError) {
        try write { db in
            for id in changeIDs {
                try db.cachedStatement(sql: "DELETE FROM answer WHERE change_id = ?")
                    .execute(arguments: [id.lowercasedText])
            }
            try db.execute(
                sql: """
                    DELETE FROM answer_key WHERE NOT EXISTS (SELECT 1 FROM answer WHERE answer.key_id = answer_key.id)
                    """
            )
        }
    }

    /// Lets the held changes of an author to one entity go again (the author edited it
    /// again, or accepts what the server holds).
    public func release(registrationID: String, entitySet: String, entityID: String) throws(OutboxError) {
        try write { db in
            try db.execute(
                sql: "UPDATE pending SET held = 0 WHERE registration_id = ? AND entity_tag = ?",
                arguments: [registrationID, entityTag(entitySet: entitySet, entityID: entityID)]
            )
        }
    }

    /// How many of a registration's changes wait unfiled (``unfiled``).
    public func unfiledCount(registrationID: String) throws(OutboxError) -> Int {
        try read { db in
            try Int.fetchOne(
                db,
                sql: "SELECT COUNT(*) FROM pending WHERE registration_id = ? AND entity_tag = ''",
                arguments: [registrationID]
            ) ?? 0
        }
    }

    /// Whether a registration's changes wait for their author's record
    /// (``refile(registrationID:changes:heldBack:)``): some are unfiled, or held because
    /// an unfiled change was refused.
    public func needsRefiling(registrationID: String) throws(OutboxError) -> Bool {
        try read { db in
            try Bool.fetchOne(
                db,
                sql: """
                    SELECT EXISTS (SELECT 1 FROM pending WHERE registration_id = ? AND (entity_tag = '' OR held = 2))
                    """,
                arguments: [registrationID]
            ) ?? false
        }
    }

    /// Files a registration's unfiled changes (``unfiled``) under their entities' tags
    /// again, from their author's own record of them, and holds again exactly the
    /// changes to the entities in `heldBack` (those behind a refusal the author has not
    /// answered), which a refusal of an unfiled change may have widened to all. A change
    /// the record lacks stays unfiled (it goes only as its author's oldest). Does nothing
    /// when the registration needs no refiling (``needsRefiling(registrationID:)``).
    ///
    /// - Returns: How many changes were filed again.
    @discardableResult
    public func refile(
        registrationID: String,
        changes: [UUID: (entitySet: String, entityID: String)],
        heldBack: [(entitySet: String, entityID: String)]
    ) throws(OutboxError) -> Int {
        try write { db in
            let unfiled = try String.fetchAll(
                db,
                sql: "SELECT change_id FROM pending WHERE registration_id = ? AND entity_tag = ''",
                arguments: [registrationID]
            )
            let widened = try Bool.fetchOne(
                db,
                sql: "SELECT EXISTS (SELECT 1 FROM pending WHERE registration_id = ? AND held = 2)",
                arguments: [registrationID]
            )
            guard !unfiled.isEmpty || widened == true else { return 0 }
            var filed = 0
            for text in unfiled {
                guard let id = UUID(uuidString: text), let entity = changes[id] else { continue }
                try db.execute(
                    sql: "UPDATE pending SET entity_tag = ? WHERE change_id = ?",
                    arguments: [entityTag(entitySet: entity.entitySet, entityID: entity.entityID), text]
                )
                filed += 1
            }
            try db.execute(sql: "UPDATE pending SET held = 0 WHERE registration_id = ?", arguments: [registrationID])
            for entity in heldBack {
                try db.execute(
                    sql: "UPDATE pending SET held = 1 WHERE registration_id = ? AND entity_tag = ?",
                    arguments: [registrationID, entityTag(entitySet: entity.entitySet, entityID: entity.entityID)]
                )
            }
            return filed
        }
    }

    /// Removes changes their author discards; they are never sent.
    public func discard(_ changeIDs: [UUID]) throws(OutboxError) {
        try write { db in
            for id in changeIDs {
                try db.execute(sql: "DELETE FROM pending WHERE change_id = ?", arguments: [id.lowercasedText])
            }
        }
    }

    // MARK: Internals

    static let answerInfo = Data("gangway.change.answer.v1".utf8)
    /// What the key an author's answers share is exported for.
    static let answerKeyContext = Data("gangway.change.answer-key.v1".utf8)

    private static func pending(_ row: Row) throws -> PendingChange {
        guard let id = UUID(uuidString: row["change_id"]) else { throw OutboxError(.corrupt, "a change's ID") }
        return PendingChange(
            changeID: id,
            registrationID: row["registration_id"],
            entityTag: row["entity_tag"],
            sequence: row["sequence"],
            sealed: row["sealed"],
            recordedAt: Date(timeIntervalSince1970: TimeInterval(row["recorded_at"] as Int64))
        )
    }

    private func read<T>(_ body: (Database) throws -> T) throws(OutboxError) -> T {
        do {
            return try pool.read(body)
        } catch {
            throw Self.map(error)
        }
    }

    private func write<T>(_ body: (Database) throws -> T) throws(OutboxError) -> T {
        do {
            return try pool.write(body)
        } catch {
            throw Self.map(error)
        }
    }

    private static func map(_ error: any Error) -> OutboxError {
        if let error = error as? OutboxError { return error }
        if error is ChangeSealError { return OutboxError(.sealingFailed, "a change could not be sealed") }
        return OutboxError(.ioFailure, "the outbox could not be read or written")
    }
}
