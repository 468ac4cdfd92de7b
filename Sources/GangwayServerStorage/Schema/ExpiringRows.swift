import Foundation

/// The rows that are of no use past their end, and how long each kind is kept past it:
/// one table, read by both stores' ``ServerStorage/purgeExpired(at:)``, so a new kind of
/// expiring row is added in one place.
enum ExpiringRows {
    /// One kind of row: deleted once `column` (milliseconds) is more than `keptFor`
    /// before now.
    struct Rule: Sendable {
        var table: String
        var column: String
        var keptFor: TimeInterval
    }

    static let rules: [Rule] = [
        // A device polling a little after its code ended still hears `expired_token`.
        Rule(table: "oauth_device_grants", column: "expires_at", keptFor: 60 * 60),
        // A code presented again within a day still revokes what it gave (RFC 6749 §4.1.2).
        Rule(table: "oauth_authorization_codes", column: "expires_at", keptFor: 24 * 60 * 60),
        Rule(table: "federated_sign_ins", column: "expires_at", keptFor: 0),
        // A session a day past its end still answers "expired", not "unknown".
        Rule(table: "sessions", column: "expires_at", keptFor: 24 * 60 * 60),
        // A spent refresh token presented again revokes its family until it would have ended.
        Rule(table: "refresh_tokens", column: "expires_at", keptFor: 0),
        // A count long past its window and its blocks counts nothing any more.
        Rule(table: "sign_in_attempts", column: "window_start", keptFor: 24 * 60 * 60),
        // A console session past its idle lifetime lets no one in.
        Rule(
            table: "operator_sessions",
            column: "last_seen_at",
            keptFor: TimeInterval(OperatorSessionRecord.idleLifetime.components.seconds)
        ),
        // An ingest batch is sent again within days of its last part, if at all; a month
        // on, its ID starts a new batch.
        Rule(table: "ingest_batches", column: "updated_at", keptFor: 30 * 24 * 60 * 60),
        Rule(
            table: "device_cookies",
            column: "created_at",
            keptFor: TimeInterval(DeviceCookieRecord.lifetime.components.seconds)
        ),
        // A replaced signing key leaves the key set once the last token it can have signed has ended.
        Rule(table: "signing_keys", column: "published_until", keptFor: 0),
    ]

    /// How long an unbound provider grant is kept.
    static let unboundGrantsKeptFor: TimeInterval = 24 * 60 * 60

    /// Each rule's `DELETE` at `now`; then the provider grants no refresh token family
    /// holds any more (its tokens ended), and those no sign-in ever took on, a day after
    /// they were made.
    static func statements(at now: Date) -> [SQL] {
        rules.map { rule in
            "DELETE FROM \(unescaped: rule.table) WHERE \(unescaped: rule.column) < \(now.addingTimeInterval(-rule.keptFor))"
        } + [
            """
            DELETE FROM provider_grants WHERE (family_id IS NOT NULL
                AND family_id NOT IN (SELECT family_id FROM refresh_tokens))
                OR (family_id IS NULL AND created_at < \(now.addingTimeInterval(-unboundGrantsKeptFor)))
            """
        ]
    }
}
