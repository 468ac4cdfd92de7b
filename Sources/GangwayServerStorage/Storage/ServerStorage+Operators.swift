import Foundation
import GangwayProtocol

extension ServerStorage {
    // MARK: Operators

    /// Adds an operator; ``StorageError/Code/duplicate`` when the name is taken.
    public func insertOperator(_ record: OperatorRecord) async throws(StorageError) {
        try await execute(try .insert(into: "operators", record))
    }

    public func operatorRecord(named name: String) async throws(StorageError) -> OperatorRecord? {
        try await first("SELECT * FROM operators WHERE name = \(name)", as: OperatorRecord.self)
    }

    /// The operator whose pending enrolment link has this hash, if it has not ended at `now`.
    public func operatorRecord(
        enrolmentHash: Data,
        at now: Date
    ) async throws(StorageError) -> OperatorRecord? {
        try await first(
            "SELECT * FROM operators WHERE enrolment_hash = \(enrolmentHash) AND enrolment_expires_at > \(now)",
            as: OperatorRecord.self
        )
    }

    /// Whether any operator has been added: one row read, whatever their number.
    public func hasOperators() async throws(StorageError) -> Bool {
        try await first("SELECT 1 AS found FROM operators LIMIT 1") { _ throws(StorageError) in true } ?? false
    }

    /// Every operator, by name.
    public func operatorRecords() async throws(StorageError) -> [OperatorRecord] {
        try await all("SELECT * FROM operators ORDER BY name", as: OperatorRecord.self)
    }

    /// Gives the operator a new enrolment link (a new password and second factor replace
    /// the old ones when it is used); `false` when there is no such operator.
    public func startEnrolment(
        of name: String,
        enrolmentHash: Data,
        expiresAt: Date
    ) async throws(StorageError) -> Bool {
        try await count(
            """
            UPDATE operators SET enrolment_hash = \(enrolmentHash), enrolment_expires_at = \(expiresAt)
            WHERE name = \(name) RETURNING name
            """
        ) == 1
    }

    /// Sets the password and second factor of the enrolment whose link has this hash, and
    /// ends the link, if it has not ended at `now`: `false` when it has, or was used
    /// (two uses of one link never both enrol). The operator's console sessions end.
    public func completeEnrolment(
        enrolmentHash: Data,
        passwordHash: String,
        sealedTOTPSecret: Data,
        at now: Date
    ) async throws(StorageError) -> Bool {
        try await queries.write(locking: []) { connection in
            let rows = try await connection.rows(
                """
                UPDATE operators SET password_hash = \(passwordHash), totp_secret = \(sealedTOTPSecret),
                    last_totp_step = NULL, enrolment_hash = NULL, enrolment_expires_at = NULL
                WHERE enrolment_hash = \(enrolmentHash) AND enrolment_expires_at > \(now)
                RETURNING name
                """
            )
            guard let row = rows.first else { return false }
            let name: String = try row("name")
            try await connection.execute("DELETE FROM operator_sessions WHERE operator = \(name)")
            return true
        }
    }

    /// Takes a second-factor code of time step `step` for the operator, once: `false` when
    /// a code of this step or a later one was taken already (a code seen on the wire or
    /// over a shoulder is spent).
    public func takeTOTPStep(_ step: Int64, operator name: String) async throws(StorageError) -> Bool {
        try await count(
            """
            UPDATE operators SET last_totp_step = \(step)
            WHERE name = \(name) AND (last_totp_step IS NULL OR last_totp_step < \(step))
            RETURNING name
            """
        ) == 1
    }

    /// Changes an operator's role; `nil` when there is no such operator.
    public func updateOperator(
        named name: String,
        role: OperatorRole
    ) async throws(StorageError) -> OperatorRecord? {
        try await queries.write(locking: []) { connection in
            try await connection.execute("UPDATE operators SET role = \(role.rawValue) WHERE name = \(name)")
            return try await connection.rows("SELECT * FROM operators WHERE name = \(name)").first?.decode(
                OperatorRecord.self
            )
        }
    }

    /// Removes an operator, their provider identities, and ends their sessions; `false`
    /// when there was none.
    public func deleteOperator(named name: String) async throws(StorageError) -> Bool {
        try await queries.write(locking: []) { connection in
            try await connection.execute("DELETE FROM operator_sessions WHERE operator = \(name)")
            try await connection.execute("DELETE FROM identities WHERE operator = \(name)")
            return try await connection.rows("DELETE FROM operators WHERE name = \(name) RETURNING name").count == 1
        }
    }

    // MARK: Console sessions

    public func insertOperatorSession(_ session: OperatorSessionRecord) async throws(StorageError) {
        try await execute(try .insert(into: "operator_sessions", session))
    }

    /// The session of `tokenHash` and its operator, unless it has been idle for
    /// ``OperatorSessionRecord/idleLifetime``; its last request is moved to `now` when
    /// it is ``OperatorSessionRecord/touchInterval`` old or more, so that a page read is a
    /// read, and the idle lifetime is kept to within that interval.
    public func touchOperatorSession(
        tokenHash: Data,
        at now: Date
    ) async throws(StorageError) -> (OperatorSessionRecord, OperatorRecord)? {
        let live = now.addingTimeInterval(-TimeInterval(OperatorSessionRecord.idleLifetime.components.seconds))
        let born = now.addingTimeInterval(-TimeInterval(OperatorSessionRecord.absoluteLifetime.components.seconds))
        // One statement: the page that asks is waiting for it.
        let rows = try await queries.read(
            """
            SELECT o.*, s.created_at AS session_created_at, s.last_seen_at
            FROM operator_sessions s JOIN operators o ON o.name = s.operator
            WHERE s.token_hash = \(tokenHash) AND s.last_seen_at > \(live) AND s.created_at > \(born)
            """
        )
        guard let row = rows.first else { return nil }
        let record = try row.decode(OperatorRecord.self)
        var session = OperatorSessionRecord(
            tokenHash: tokenHash,
            operatorName: record.name,
            createdAt: try row("session_created_at"),
            lastSeenAt: try row("last_seen_at")
        )
        let touch = TimeInterval(OperatorSessionRecord.touchInterval.components.seconds)
        guard now.timeIntervalSince(session.lastSeenAt) >= touch else { return (session, record) }
        // Not ended in between (a sign-out, a removal): then it is gone.
        let moved = try await queries.write(locking: []) { connection in
            try await connection.rows(
                """
                UPDATE operator_sessions SET last_seen_at = \(now)
                WHERE token_hash = \(tokenHash) AND last_seen_at > \(live) RETURNING token_hash
                """
            ).count
        }
        guard moved == 1 else { return nil }
        session.lastSeenAt = now
        return (session, record)
    }

    public func deleteOperatorSession(tokenHash: Data) async throws(StorageError) {
        try await execute("DELETE FROM operator_sessions WHERE token_hash = \(tokenHash)")
    }

    // MARK: Audit

    /// Appends an event to the audit.
    public func appendAuditEvent(_ event: AuditEventRecord) async throws(StorageError) {
        try await execute(try .insert(into: "audit_events", event))
    }

    /// The newest `limit` events, newest first; with `before`, those recorded before that event.
    public func auditEvents(
        limit: Int,
        before: Int64? = nil,
        actor: String? = nil,
        action: String? = nil
    ) async throws(StorageError) -> [AuditEventRecord] {
        var statement: SQL = "SELECT * FROM audit_events WHERE TRUE"
        if let before { statement = statement + " AND id < \(before)" }
        if let actor { statement = statement + " AND actor = \(actor)" }
        if let action { statement = statement + " AND action = \(action)" }
        return try await all(statement + " ORDER BY id DESC LIMIT \(limit)")
    }
}
