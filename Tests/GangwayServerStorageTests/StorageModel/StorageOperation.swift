import GangwayProtocol
import GangwayServerStorage

/// One step of a model-based storage test: a storage call, or the few calls the server
/// makes together (a sign-in, a registration, a lock), over small domains — three users,
/// two devices, two apps, three entities — so that duplicates, conflicts and full sets
/// come often.
///
/// An operation names what a sequence made before it (its sessions, registrations,
/// change IDs, refresh tokens) by number, counted around what there is, so that it stays
/// meaningful when shrinking drops the operations before it; the
/// ``StorageModelRunner`` turns it into records.
enum StorageOperation: Sendable, Hashable, CustomStringConvertible {
    /// One change of an upload.
    struct ChangeSpec: Sendable, Hashable, CustomStringConvertible {
        /// `nil`: a new change ID; otherwise the n-th change ID used so far (a duplicate).
        var reusedID: Int?
        var author: Int
        /// The author's device, whose registration (in the first app) the change names.
        var device: Int
        var sequence: Int64
        var entitySet: Int
        var entity: Int
        /// `nil` creates the entity.
        var baseVersion: Int64?
        var fields: [String: String]

        var description: String {
            let id = reusedID.map { "change ID #\($0)" } ?? "new change"
            let base = baseVersion.map { "on v\($0)" } ?? "creating"
            return "\(id) by u\(author)/d\(device) seq \(sequence): \(Self.sets[entitySet])/e\(entity) \(base) "
                + StorageOperation.describe(fields)
        }

        static let sets = ["checks", "bulk"]
    }

    /// `insertUser`: a duplicate when the user exists.
    case addUser(Int, blocked: Bool)
    /// `updateUser`, with the user's block changed.
    case updateUser(Int, blocked: Bool)
    /// `updateSignInAttempts` counting (or clearing, when the password is right) the
    /// attempts of the user and of the user at one address; when right, `insertSession`
    /// for `hours`, and `insertDeviceCookie` when `cookie`.
    case signIn(user: Int, device: Int, app: Int, address: Int, succeeds: Bool, hours: Int, cookie: Bool)
    /// `insertSession` with the n-th session's token: a duplicate unless it was purged.
    case insertSessionAgain(Int)
    case revokeSession(Int)
    case revokeSessions(user: Int, app: Int?, device: Int?)
    /// Registers a device as the server does: the registration there is updated, or a new
    /// one (`renew`, or when it was wiped) replaces it.
    case register(user: Int, device: Int, app: Int, renew: Bool)
    /// Locks, wipes or unlocks the n-th registration made, as the admin does.
    case setStatus(registration: Int, DeviceStatus)
    case touch(registration: Int)
    /// `putEntity` as the admin (`by` nil) or a user.
    case put(entitySet: Int, entity: Int, fields: [String: String], limit: Int, by: Int?)
    case delete(entitySet: Int, entity: Int)
    /// `setEntitySchema`: one of ``schemas``, or none.
    case setSchema(entitySet: Int, schema: Int?)
    /// `applyChanges` of one upload, carried by the authors or by another user.
    case upload(limit: Int, carrier: Int?, [ChangeSpec])
    /// An upload of one more new entity than an author may create
    /// (``GangwayProtocol/EntityLimits/creationsPerAuthor``, not a parameter) in the bulk
    /// set: the last is refused, as is the author's next creation there. Slow (on
    /// PostgreSQL over a second), so not drawn with the others: a check puts one in some
    /// sequences.
    case flood(author: Int)
    /// `insertRefreshToken` in a new family or the n-th one, with a new token or the
    /// n-th one (a duplicate), for the n-th session.
    case issueRefreshToken(user: Int, device: Int, family: Int?, reusedToken: Int?, session: Int, hours: Int)
    case spendRefreshToken(Int)
    case revokeFamily(Int)
    case advance(hours: Int)
    case purge
    /// Reads everything the model holds back from the storage.
    case compareState

    // MARK: Domains

    static let users = 3
    static let devices = 2
    static let apps = 2
    static let entities = 3
    static let fieldNames = ["status", "note", "locked"]
    /// Values, one of them with quotes and a character outside ASCII for the stored JSON.
    static let values = ["open", "done", "n/a", "say \"hi\" ✈︎", "7", "12.5", "true", ""]
    /// The schemas a sequence gives its sets, over the fields changes write.
    static let schemas: [[EntityField]] = [
        [EntityField("status", .text, required: true), EntityField("note", .text), EntityField("locked", .text)],
        [EntityField("status", .text), EntityField("note", .integer), EntityField("locked", .text)],
        [EntityField("status", .decimal), EntityField("note", .text)],
        [
            EntityField("status", .text, required: true, indexed: true), EntityField("note", .text),
            EntityField("locked", .boolean),
        ],
        // The subsets' schemas: one refuses an entity without a status, so that puts are
        // refused by a schema with a subset too.
        [EntityField("status", .text, required: true), EntityField("note", .text), EntityField("locked", .text)],
        [EntityField("status", .text), EntityField("note", .text), EntityField("locked", .text)],
    ]
    /// The subsets of ``schemas``, by index: a user's part is the entities whose field
    /// holds one of their values.
    static let subsets: [Int: EntitySubset] = [
        4: EntitySubset(field: "status", attribute: "statuses"), 5: EntitySubset(field: "note", attribute: "notes"),
    ]
    /// The values the parts of a set with a subset are read by.
    static let parts: [Set<String>] = [["open"], ["done", "7"], [], ["n/a", "open", "true"]]
    static let limits = [1, 2, 3, 1000]
    static let hours = [1, 25, 181 * 24]

    static func describe(_ fields: [String: String]) -> String {
        "{" + fields.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "}"
    }

    var description: String {
        func user(_ index: Int?) -> String { index.map { "u\($0)" } ?? "nil" }
        switch self {
        case .addUser(let user, let blocked): return "addUser(u\(user), blocked: \(blocked))"
        case .updateUser(let user, let blocked): return "updateUser(u\(user), blocked: \(blocked))"
        case .signIn(let user, let device, let app, let address, let succeeds, let hours, let cookie):
            return
                "signIn(u\(user), d\(device), app\(app), address \(address), succeeds: \(succeeds), \(hours) h, cookie: \(cookie))"
        case .insertSessionAgain(let session): return "insertSessionAgain(session #\(session))"
        case .revokeSession(let session): return "revokeSession(session #\(session))"
        case .revokeSessions(let user, let app, let device):
            return "revokeSessions(u\(user), app: \(app.map { "app\($0)" } ?? "nil"), device: "
                + "\(device.map { "d\($0)" } ?? "nil"))"
        case .register(let user, let device, let app, let renew):
            return "register(u\(user), d\(device), app\(app), renew: \(renew))"
        case .setStatus(let registration, let status): return "setStatus(registration #\(registration), \(status))"
        case .touch(let registration): return "touch(registration #\(registration))"
        case .put(let entitySet, let entity, let fields, let limit, let by):
            return "put(\(ChangeSpec.sets[entitySet])/e\(entity), \(Self.describe(fields)), limit: \(limit), by: "
                + "\(by.map { "u\($0)" } ?? "admin"))"
        case .delete(let entitySet, let entity): return "delete(\(ChangeSpec.sets[entitySet])/e\(entity))"
        case .setSchema(let entitySet, let schema):
            return "setSchema(\(ChangeSpec.sets[entitySet]), \(schema.map { "schema #\($0)" } ?? "none"))"
        case .upload(let limit, let carrier, let changes):
            return
                "upload(limit: \(limit), carrier: \(user(carrier)), [\(changes.map(\.description).joined(separator: "; "))])"
        case .flood(let author): return "flood(u\(author))"
        case .issueRefreshToken(let user, let device, let family, let reusedToken, let session, let hours):
            return "issueRefreshToken(u\(user), d\(device), family: \(family.map { "#\($0)" } ?? "new"), token: "
                + "\(reusedToken.map { "#\($0)" } ?? "new"), session #\(session), \(hours) h)"
        case .spendRefreshToken(let token): return "spendRefreshToken(token #\(token))"
        case .revokeFamily(let family): return "revokeFamily(family #\(family))"
        case .advance(let hours): return "advance(\(hours) h)"
        case .purge: return "purge"
        case .compareState: return "compareState"
        }
    }

    // MARK: Generating

    /// `length` operations drawn from `random`, one of them a ``flood(author:)`` when
    /// `flood`.
    static func sequence(length: Int, flood: Bool, using random: inout SeededRandom) -> [StorageOperation] {
        var operations = (0..<length).map { _ in draw(using: &random) }
        if flood {
            operations.insert(
                .flood(author: Int.random(in: 0..<users, using: &random)),
                at: Int.random(in: 0...operations.count, using: &random)
            )
        }
        return operations
    }

    /// How often each kind of operation is drawn, against the others.
    private static let weights: [(Int, @Sendable (inout SeededRandom) -> StorageOperation)] = [
        (8, { .addUser(Int.random(in: 0..<users, using: &$0), blocked: $0.chance(20)) }),
        (3, { .updateUser(Int.random(in: 0..<users, using: &$0), blocked: $0.chance(50)) }),
        (10, signIn),
        (4, { .insertSessionAgain(Int.random(in: 0..<4, using: &$0)) }),
        (3, { .revokeSession(Int.random(in: 0..<4, using: &$0)) }),
        (4, revokeSessions),
        (12, register),
        (4, { .setStatus(registration: Int.random(in: 0..<4, using: &$0), $0.pick(DeviceStatus.allCases)) }),
        (2, { .touch(registration: Int.random(in: 0..<4, using: &$0)) }),
        (7, put),
        (4, { .delete(entitySet: entitySet(&$0), entity: Int.random(in: 0..<entities, using: &$0)) }),
        // Often enough that 80 sequences (PostgreSQL's) put against a schema and are
        // refused by it: at 3, one seed in a few dozen never did (4958239416542696849).
        // A schema with a subset is drawn two times in three, so that an entity moves out of
        // a subset value in 80 sequences too: at one in three, seed 4688396622206850082
        // never moved one.
        (
            5,
            {
                .setSchema(
                    entitySet: entitySet(&$0),
                    schema: $0.chance(35)
                        ? nil
                        : $0.chance(50)
                            ? $0.pick(Array(subsets.keys.sorted())) : Int.random(in: 0..<schemas.count, using: &$0)
                )
            }
        ),
        (25, upload),
        (7, issueRefreshToken),
        (6, { .spendRefreshToken(Int.random(in: 0..<4, using: &$0)) }),
        (5, { .revokeFamily(Int.random(in: 0..<3, using: &$0)) }),
        (4, { .advance(hours: $0.pick(hours)) }),
        (3, { _ in .purge }),
        (3, { _ in .compareState }),
    ]

    private static func draw(using random: inout SeededRandom) -> StorageOperation {
        var roll = Int.random(in: 0..<weights.reduce(0) { $0 + $1.0 }, using: &random)
        for (weight, make) in weights {
            if roll < weight { return make(&random) }
            roll -= weight
        }
        return .compareState
    }

    private static func signIn(_ random: inout SeededRandom) -> StorageOperation {
        .signIn(
            user: Int.random(in: 0..<users, using: &random),
            device: Int.random(in: 0..<devices, using: &random),
            app: random.chance(80) ? 0 : 1,
            address: Int.random(in: 0..<2, using: &random),
            succeeds: random.chance(60),
            hours: random.pick(hours),
            cookie: random.chance(40)
        )
    }

    private static func revokeSessions(_ random: inout SeededRandom) -> StorageOperation {
        .revokeSessions(
            user: Int.random(in: 0..<users, using: &random),
            app: random.chance(50) ? nil : Int.random(in: 0..<apps, using: &random),
            device: random.chance(50) ? nil : Int.random(in: 0..<devices, using: &random)
        )
    }

    private static func register(_ random: inout SeededRandom) -> StorageOperation {
        .register(
            user: Int.random(in: 0..<users, using: &random),
            device: Int.random(in: 0..<devices, using: &random),
            app: random.chance(90) ? 0 : 1,
            renew: random.chance(40)
        )
    }

    private static func entitySet(_ random: inout SeededRandom) -> Int {
        random.chance(75) ? 0 : 1
    }

    private static func fields(_ random: inout SeededRandom) -> [String: String] {
        var fields: [String: String] = [:]
        for _ in 0..<Int.random(in: 1...2, using: &random) {
            let name = random.chance(5) ? "locked" : random.pick(["status", "note"])
            fields[name] = random.pick(values)
        }
        return fields
    }

    private static func put(_ random: inout SeededRandom) -> StorageOperation {
        .put(
            entitySet: entitySet(&random),
            entity: Int.random(in: 0..<entities, using: &random),
            fields: random.chance(5) ? [:] : fields(&random),
            limit: random.pick(limits),
            by: random.chance(70) ? nil : Int.random(in: 0..<users, using: &random)
        )
    }

    private static func upload(_ random: inout SeededRandom) -> StorageOperation {
        let changes = (0..<Int.random(in: 1...3, using: &random)).map { _ in
            ChangeSpec(
                reusedID: random.chance(20) ? Int.random(in: 0..<6, using: &random) : nil,
                author: Int.random(in: 0..<users, using: &random),
                device: Int.random(in: 0..<devices, using: &random),
                sequence: Int64.random(in: 1...4, using: &random),
                entitySet: entitySet(&random),
                entity: Int.random(in: 0..<entities, using: &random),
                baseVersion: random.chance(30) ? nil : Int64.random(in: 1...3, using: &random),
                fields: fields(&random)
            )
        }
        return .upload(
            limit: random.pick(limits),
            carrier: random.chance(80) ? nil : Int.random(in: 0..<users, using: &random),
            changes
        )
    }

    private static func issueRefreshToken(_ random: inout SeededRandom) -> StorageOperation {
        .issueRefreshToken(
            user: Int.random(in: 0..<users, using: &random),
            device: Int.random(in: 0..<devices, using: &random),
            family: random.chance(25) ? nil : Int.random(in: 0..<3, using: &random),
            reusedToken: random.chance(10) ? Int.random(in: 0..<4, using: &random) : nil,
            session: Int.random(in: 0..<4, using: &random),
            hours: random.pick(hours)
        )
    }

    // MARK: Shrinking

    /// Simpler forms of this operation, for shrinking: fewer changes in an upload, fewer
    /// fields, new IDs instead of reused ones, no limits, no filters.
    var simplifications: [StorageOperation] {
        switch self {
        case .upload(let limit, let carrier, let changes):
            var simpler: [StorageOperation] = []
            if changes.count > 1 {
                for index in changes.indices {
                    var fewer = changes
                    fewer.remove(at: index)
                    simpler.append(.upload(limit: limit, carrier: carrier, fewer))
                }
            }
            if carrier != nil { simpler.append(.upload(limit: limit, carrier: nil, changes)) }
            if limit != 1000 { simpler.append(.upload(limit: 1000, carrier: carrier, changes)) }
            for index in changes.indices {
                for change in changes[index].simplifications {
                    var simplified = changes
                    simplified[index] = change
                    simpler.append(.upload(limit: limit, carrier: carrier, simplified))
                }
            }
            return simpler
        case .put(let entitySet, let entity, let fields, let limit, let by):
            var simpler: [StorageOperation] = []
            if limit != 1000 {
                simpler.append(.put(entitySet: entitySet, entity: entity, fields: fields, limit: 1000, by: by))
            }
            if by != nil {
                simpler.append(.put(entitySet: entitySet, entity: entity, fields: fields, limit: limit, by: nil))
            }
            for fewer in Self.fewer(fields) {
                simpler.append(.put(entitySet: entitySet, entity: entity, fields: fewer, limit: limit, by: by))
            }
            return simpler
        case .signIn(let user, let device, let app, let address, let succeeds, let hours, let cookie) where cookie:
            return [
                .signIn(
                    user: user,
                    device: device,
                    app: app,
                    address: address,
                    succeeds: succeeds,
                    hours: hours,
                    cookie: false
                )
            ]
        case .revokeSessions(let user, let app, let device) where app != nil || device != nil:
            return [
                .revokeSessions(user: user, app: nil, device: device),
                .revokeSessions(user: user, app: app, device: nil),
            ]
        case .issueRefreshToken(let user, let device, let family, let reusedToken, let session, let hours)
        where family != nil || reusedToken != nil:
            return [
                .issueRefreshToken(
                    user: user,
                    device: device,
                    family: nil,
                    reusedToken: reusedToken,
                    session: session,
                    hours: hours
                ),
                .issueRefreshToken(
                    user: user,
                    device: device,
                    family: family,
                    reusedToken: nil,
                    session: session,
                    hours: hours
                ),
            ]
        default:
            return []
        }
    }

    /// `fields` without each of its fields in turn, while one is left.
    fileprivate static func fewer(_ fields: [String: String]) -> [[String: String]] {
        guard fields.count > 1 else { return [] }
        return fields.keys.sorted().map { name in fields.filter { $0.key != name } }
    }
}

extension StorageOperation.ChangeSpec {
    /// Simpler forms of this change: a new ID, fewer fields.
    fileprivate var simplifications: [Self] {
        var simpler: [Self] = []
        if reusedID != nil {
            var fresh = self
            fresh.reusedID = nil
            simpler.append(fresh)
        }
        for fewer in StorageOperation.fewer(fields) {
            var smaller = self
            smaller.fields = fewer
            simpler.append(smaller)
        }
        return simpler
    }
}
