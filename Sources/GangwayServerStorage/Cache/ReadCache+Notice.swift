import Foundation

/// What a write made stale, as the notice other processes sharing the database read
/// back (``ServerStorage/makeNoticeListener()``): a JSON array of drops, each an array
/// of strings, its kind first (`[["device"], ["app", "checks"]]`).
///
/// A notice names rows (an app, a user name, a session by its token's hash), never a
/// value read from them; any process that can read it can read the rows it names.
extension ReadCache.Drop {
    /// The most a notice holds: PostgreSQL's limit is 8,000 bytes, and the schema and
    /// origin travel with it. Past it, a notice names the kinds alone.
    static let noticeBytes = 6_000

    /// `drops` as one notice; their kinds alone when naming each would be too long.
    static func notice(_ drops: [ReadCache.Drop]) -> String {
        let text = encoded(drops.map(\.parts))
        guard text.utf8.count > noticeBytes else { return text }
        var kinds: [ReadCache.Kind] = []
        for drop in drops where !kinds.contains(drop.kind) { kinds.append(drop.kind) }
        return encoded(kinds.map { [$0.rawValue] })
    }

    /// The drops a notice names; `nil` for a text that is not one (a later version's
    /// kind, say), which the listener answers by dropping everything.
    static func drops(inNotice notice: String) -> [ReadCache.Drop]? {
        guard let parts = try? JSONDecoder().decode([[String]].self, from: Data(notice.utf8)) else { return nil }
        var drops: [ReadCache.Drop] = []
        for part in parts {
            guard let drop = ReadCache.Drop(parts: part) else { return nil }
            drops.append(drop)
        }
        return drops
    }

    private static func encoded(_ parts: [[String]]) -> String {
        // Arrays of strings always encode.
        (try? String(decoding: JSONEncoder().encode(parts), as: UTF8.self)) ?? "[]"
    }

    private var parts: [String] {
        switch self {
        case .every(let kind): [kind.rawValue]
        case .key(let key):
            switch key {
            case .app(let id): [key.kind.rawValue, id]
            case .session(let hash): [key.kind.rawValue, hash.base64EncodedString()]
            case .device(let appID, let username, let deviceID): [key.kind.rawValue, appID, username, deviceID]
            case .user(let username): [key.kind.rawValue, username]
            case .entitySet(let appID, let entitySet): [key.kind.rawValue, appID, entitySet]
            case .entitySchemas(let appID): [key.kind.rawValue, appID]
            case .destination(let appID, let name): [key.kind.rawValue, appID, name]
            case .secret(let name): [key.kind.rawValue, name]
            case .signingKeys(let purpose): [key.kind.rawValue, purpose]
            }
        }
    }

    private init?(parts: [String]) {
        guard let first = parts.first, let kind = ReadCache.Kind(rawValue: first) else { return nil }
        let rest = Array(parts.dropFirst())
        if rest.isEmpty {
            self = .every(kind)
            return
        }
        let key: ReadCache.Key
        switch (kind, rest.count) {
        case (.app, 1): key = .app(rest[0])
        case (.session, 1):
            guard let hash = Data(base64Encoded: rest[0]) else { return nil }
            key = .session(hash)
        case (.device, 3): key = .device(appID: rest[0], username: rest[1], deviceID: rest[2])
        case (.user, 1): key = .user(rest[0])
        case (.entitySet, 2): key = .entitySet(appID: rest[0], entitySet: rest[1])
        case (.entitySchemas, 1): key = .entitySchemas(appID: rest[0])
        case (.destination, 2): key = .destination(appID: rest[0], name: rest[1])
        case (.secret, 1): key = .secret(rest[0])
        case (.signingKeys, 1): key = .signingKeys(rest[0])
        default: return nil
        }
        self = .key(key)
    }
}
