import Foundation

/// A provider's people linked to users and to operators: one table, one way for both.
extension ServerStorage {
    /// Links a provider's subject to a user or an operator;
    /// ``StorageError/Code/duplicate`` when the subject is linked to one of that kind
    /// already (this one or another).
    public func insertIdentityLink(_ link: IdentityLinkRecord) async throws(StorageError) {
        let username: String? = link.holder.kind == .user ? link.holder.name : nil
        let operatorName: String? = link.holder.kind == .operator ? link.holder.name : nil
        try await execute(
            """
            INSERT INTO identities (kind, issuer, subject, username, operator, created_at)
            VALUES (\(link.holder.kind.rawValue), \(link.issuer), \(link.subject), \(username), \(operatorName),
                \(link.createdAt))
            """
        )
    }

    /// The user or the operator (as `kind` says) a provider's subject is linked to.
    public func identityLink(
        issuer: String,
        subject: String,
        kind: IdentityHolder.Kind
    ) async throws(StorageError) -> IdentityLinkRecord? {
        try await first(
            "\(IdentityLinkRecord.select) WHERE kind = \(kind.rawValue) AND issuer = \(issuer) AND subject = \(subject)",
            IdentityLinkRecord.init
        )
    }

    /// The links of the holders of `kind` named in `names` (every one of that kind when
    /// `nil`), by holder, then issuer and subject.
    public func identityLinks(
        _ kind: IdentityHolder.Kind,
        named names: [String]? = nil
    ) async throws(StorageError) -> [IdentityLinkRecord] {
        let order: SQL = "ORDER BY username, operator, issuer, subject"
        guard let names else {
            return try await all(
                "\(IdentityLinkRecord.select) WHERE kind = \(kind.rawValue) \(order)",
                IdentityLinkRecord.init
            )
        }
        guard !names.isEmpty else { return [] }
        return try await all(
            "\(IdentityLinkRecord.select) WHERE kind = \(kind.rawValue) AND \(kind.column) IN (\(list: names)) \(order)",
            IdentityLinkRecord.init
        )
    }

    /// The issuers at least one holder of `kind` is linked at: for operators, the
    /// providers the console's sign-in page offers.
    public func linkedIssuers(_ kind: IdentityHolder.Kind) async throws(StorageError) -> [String] {
        try await all("SELECT DISTINCT issuer FROM identities WHERE kind = \(kind.rawValue) ORDER BY issuer") {
            row throws(StorageError) in try row("issuer")
        }
    }

    /// Removes the link if it names `holder`; `false` when there was none.
    public func deleteIdentityLink(
        issuer: String,
        subject: String,
        holder: IdentityHolder
    ) async throws(StorageError) -> Bool {
        try await count(
            """
            DELETE FROM identities WHERE kind = \(holder.kind.rawValue) AND issuer = \(issuer)
                AND subject = \(subject) AND \(holder.kind.column) = \(holder.name)
            RETURNING subject
            """
        ) == 1
    }

    /// The operator a provider's subject is linked to, and the link: one statement.
    public func operatorRecord(
        issuer: String,
        subject: String
    ) async throws(StorageError) -> (IdentityLinkRecord, OperatorRecord)? {
        let rows = try await queries.read(
            """
            SELECT o.*, i.created_at AS linked_at
            FROM identities i JOIN operators o ON o.name = i.operator
            WHERE i.kind = \(IdentityHolder.Kind.operator.rawValue) AND i.issuer = \(issuer) AND i.subject = \(subject)
            """
        )
        guard let row = rows.first else { return nil }
        let record = try row.decode(OperatorRecord.self)
        let link = IdentityLinkRecord(
            issuer: issuer,
            subject: subject,
            holder: .operator(record.name),
            createdAt: try row("linked_at")
        )
        return (link, record)
    }
}

extension IdentityLinkRecord {
    static let select: SQL = "SELECT kind, issuer, subject, username, operator, created_at FROM identities"

    init(row: SQLRow) throws(StorageError) {
        guard let kind = IdentityHolder.Kind(rawValue: try row("kind")) else {
            throw StorageError(.corrupt, "an identity link has an unknown kind")
        }
        let name: String? = try row(kind.columnName)
        guard let name else { throw StorageError(.corrupt, "an identity link names no one") }
        self.init(
            issuer: try row("issuer"),
            subject: try row("subject"),
            holder: IdentityHolder(kind, name),
            createdAt: try row("created_at")
        )
    }
}

extension IdentityHolder.Kind {
    /// The column that names a holder of this kind.
    var columnName: String { self == .user ? "username" : "operator" }
    var column: SQL { "\(unescaped: columnName)" }
}
