import Foundation
import GangwayProtocol
import GangwayServer
import GangwayServerStorage
import GangwayServerTesting
import GangwayTesting
import Testing

@Suite(
    "The server's storage ends each change exactly once, merging it field by field",
    .servingTurn,
    .tags(.postgres),
    .skipsTags
)
struct ChangeApplicationTests {
    static let checks = ["status", "reading", "note"]

    /// A change of `author` to the first check, based on `base`.
    static func change(
        _ author: String = "alice",
        sequence: Int64,
        base: Int64? = 1,
        entity: String = "A320-tyres",
        _ fields: [String: String]
    ) -> Change {
        Change(
            registrationID: "reg-\(author)",
            author: author,
            sequence: sequence,
            entitySet: "checks",
            entityID: entity,
            baseVersion: base,
            fields: fields,
            madeAt: Date(timeIntervalSince1970: 1_800_000_000)
        )
    }

    /// Applies `change` as the server does: the set's rules, then the merge.
    static func apply(
        _ change: Change,
        carrier: String? = nil,
        limit: Int = 1000,
        rules: EntitySetRules = EntitySetRules(writableFields: Set(checks), allowsCreation: true),
        to storage: ServerStorage
    ) async throws -> ChangeResult {
        // A batch of one.
        let application = ChangeApplication(
            appID: "checks",
            change: change,
            carrier: carrier ?? change.author,
            receivedAt: Date(timeIntervalSince1970: 1_800_000_100)
        )
        let results = try await storage.applyChanges([application], limit: limit) {
            change,
            current throws(ChangeRejection) in
            try rules.check(change)
            return try FieldMerge.merge(change, into: current)
        }
        return try #require(results.first)
    }

    static func tyres(_ storage: ServerStorage) async throws -> EntityRecord? {
        try await storage.entities(appID: "checks", entitySet: "checks").first { $0.id == "A320-tyres" }
    }

    /// Puts the first check as the admin does: version 1.
    static func seedCheck(_ storage: ServerStorage) async throws {
        _ = try await storage.putEntity(
            EntityRecord(
                appID: "checks",
                entitySet: "checks",
                id: "A320-tyres",
                fields: ["status": "open", "reading": "7.9 bar"],
                updatedAt: Date(timeIntervalSince1970: 1_800_000_000),
                updatedBy: "admin"
            ),
            limit: 1000
        )
    }

    /// Runs `body` with the storage of two servers on one database, the first check
    /// seeded: as two server processes would run.
    static func onTwoServers(
        _ backend: Backend,
        _ body: @escaping @Sendable ([ServerStorage]) async throws -> Void
    ) async throws {
        let fixture = try await ServerFixture(backend: backend)
        let other = try await MobileServicesServer(
            configuration: fixture.server.configuration,
            logger: fixture.logs.logger,
            now: fixture.clock.now
        )
        try await fixture.runSeeded { _ in
            try await TestServer(server: other, adminToken: fixture.adminToken).run { _ in
                try await seedCheck(fixture.server.storage)
                try await body([fixture.server.storage, other.storage])
            }
        }
    }

    @Test(
        "any text a field holds, and any key, reads back as written from either database, with its versions",
        arguments: Backend.available
    )
    func awkwardTexts(backend: Backend) async throws {
        // What the API lets through is narrower (field names, no control characters);
        // the storage keeps whatever it is given, NUL aside, which PostgreSQL refuses.
        let fields = [
            "quote": #"say "hi""#, "back\\slash": #"C:\dir\"#, "slash/key": #"a/b\/c"#,
            "control": "line\nnext\ttab\u{1}\u{1F}\u{7F}", "accents": "Zoë, Øystein, İstanbul",
            "emoji": "✈️👩🏽‍🔧", "": "", "rtl": "evil\u{202E}gpj", "brace}\",": "{\"not\": \"json\"}",
            "números": "١٢٣", "status": "open",
        ]
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { _ in
            let storage = fixture.server.storage
            _ = try await storage.putEntity(
                EntityRecord(
                    appID: "checks",
                    entitySet: "checks",
                    id: "A320-tyres",
                    fields: fields,
                    version: 1,
                    updatedAt: Date(timeIntervalSince1970: 1_800_000_000),
                    updatedBy: "admin"
                ),
                limit: 1000
            )
            #expect(try await Self.tyres(storage)?.fields == fields)
            let change = Self.change(sequence: 1, ["status": "done"])
            #expect(try await Self.apply(change, to: storage).outcome == .applied)
            let stored = try #require(try await Self.tyres(storage))
            #expect(stored.fields == fields.merging(["status": "done"]) { _, new in new })
            #expect(stored.fieldVersions["status"] == 2)
            #expect(stored.fieldVersions["control"] == 1)
            #expect(stored.fieldVersions[""] == 1)
        }
    }

    @Test(
        "a change is applied once; sent again it gets its first result and changes nothing",
        arguments: Backend.available
    )
    func appliedOnce(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { _ in
            let storage = fixture.server.storage
            try await Self.seedCheck(storage)
            let change = Self.change(sequence: 1, ["status": "done"])
            let first = try await Self.apply(change, to: storage)
            #expect(first.outcome == .applied)
            #expect(first.version == 2)
            for _ in 0..<3 {
                let again = try await Self.apply(change, to: storage)
                #expect(again.outcome == .duplicate)
                #expect(again.original == .applied)
                #expect(again.version == 2)
            }
            let stored = try #require(try await Self.tyres(storage))
            #expect(stored.version == 2)
            #expect(stored.fields == ["status": "done", "reading": "7.9 bar"])
            #expect(stored.updatedBy == "alice")
            #expect(stored.fieldVersions == ["status": 2, "reading": 1])
        }
    }

    @Test(
        "two authors on one base: fields apart merge, a field both changed keeps the first",
        arguments: Backend.available
    )
    func conflicts(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { _ in
            let storage = fixture.server.storage
            try await Self.seedCheck(storage)
            let alices = try await Self.apply(Self.change(sequence: 1, ["reading": "8.2 bar"]), to: storage)
            #expect(alices.outcome == .applied)
            let bobs = Self.change("bob", sequence: 1, ["reading": "8.0 bar", "note": "valve ok"])
            let result = try await Self.apply(bobs, to: storage)
            #expect(result.outcome == .conflict)
            #expect(
                result.conflicts == [FieldConflict(field: "reading", serverValue: "8.2 bar", deviceValue: "8.0 bar")]
            )
            #expect(result.version == 3)
            let stored = try #require(try await Self.tyres(storage))
            #expect(stored.fields == ["status": "open", "reading": "8.2 bar", "note": "valve ok"])
            let again = try await Self.apply(bobs, to: storage)
            #expect(again.outcome == .duplicate)
            #expect(again.original == .conflict)
            #expect(again.conflicts == result.conflicts)
        }
    }

    @Test(
        "refusals are ended for good: a field not allowed, a deleted entity, a reused sequence, a full set",
        arguments: Backend.available
    )
    func rejections(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { _ in
            let storage = fixture.server.storage
            try await Self.seedCheck(storage)
            let notAllowed = Self.change(sequence: 1, ["aircraft": "D-AIZZ"])
            let refused = try await Self.apply(notAllowed, to: storage)
            #expect(refused.outcome == .rejected)
            #expect(refused.rejection?.code == .fieldNotWritable)
            #expect(try await Self.apply(notAllowed, to: storage).original == .rejected)

            let gone = try await Self.apply(Self.change(sequence: 2, entity: "A321-fuel", ["status": "x"]), to: storage)
            #expect(gone.rejection?.code == .entityNotFound)

            // Another change with sequence 1 of the same registration.
            let reused = try await Self.apply(Self.change(sequence: 1, ["status": "done"]), to: storage)
            #expect(reused.rejection?.code == .sequenceReused)

            let full = try await Self.apply(
                Self.change(sequence: 3, base: nil, entity: "A321-new", ["status": "open"]),
                limit: 1,
                to: storage
            )
            #expect(full.rejection?.code == .entitySetFull)

            // Nothing of it reached the entity, and the next change of the author flows.
            let stored = try #require(try await Self.tyres(storage))
            #expect(stored.version == 1)
            #expect(stored.fields == ["status": "open", "reading": "7.9 bar"])
            #expect(try await storage.entities(appID: "checks", entitySet: "checks").count == 1)
            #expect(try await Self.apply(Self.change(sequence: 4, ["status": "done"]), to: storage).outcome == .applied)
        }
    }

    @Test(
        "one person creates at most 200 entities in a set; devices leave the admin room in a full set",
        arguments: Backend.available
    )
    func creationsAreBounded(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { _ in
            let storage = fixture.server.storage
            let alices = (1...Int64(EntityLimits.creationsPerAuthor + 1)).map { index in
                Self.change(sequence: index, base: nil, entity: "junk-\(index)", ["status": "open"])
            }
            let results = try await Self.applyBatch(alices, limit: 300, to: storage)
            #expect(results.prefix(EntityLimits.creationsPerAuthor).allSatisfy { $0.outcome == .applied })
            #expect(results.last?.rejection?.code == .creationLimitReached)
            // Bob still creates, until devices have filled their share of the set.
            let bobs = (1...Int64(3)).map { index in
                Self.change("bob", sequence: index, base: nil, entity: "bob-\(index)", ["status": "open"])
            }
            let bobResults = try await Self.applyBatch(bobs, limit: EntityLimits.creationsPerAuthor + 2, to: storage)
            #expect(bobResults.map(\.outcome) == [.applied, .applied, .rejected])
            #expect(bobResults.last?.rejection?.code == .entitySetFull)
            // The admin's own write still finds room.
            let admin = try await storage.putEntity(
                EntityRecord(
                    appID: "checks",
                    entitySet: "checks",
                    id: "A320-tyres",
                    fields: ["status": "open"],
                    updatedAt: Date(timeIntervalSince1970: 1_800_000_000),
                    updatedBy: "admin"
                ),
                limit: EntityLimits.entitiesPerSet
            )
            #expect(admin.created)
            // An existing entity is still edited by its creator's later changes.
            let edit = try await Self.apply(
                Self.change(sequence: 300, base: 1, entity: "junk-1", ["status": "done"]),
                to: storage
            )
            #expect(edit.outcome == .applied)
        }
    }

    @Test("the admin's entities are no user's creations, even one named admin", arguments: Backend.available)
    func theAdminsEntitiesAreNoUsersCreations(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { _ in
            let storage = fixture.server.storage
            try await Self.seedCheck(storage)
            let creations = (1...Int64(EntityLimits.creationsPerAuthor)).map { index in
                Self.change("admin", sequence: index, base: nil, entity: "admin-\(index)", ["status": "open"])
            }
            let results = try await Self.applyBatch(creations, limit: 300, to: storage)
            #expect(results.allSatisfy { $0.outcome == .applied }, "the admin's put counts for no one")
        }
    }

    /// Applies `changes` in one batch as the server does an upload.
    static func applyBatch(
        _ changes: [Change],
        limit: Int = 1000,
        rules: EntitySetRules = EntitySetRules(writableFields: Set(checks), allowsCreation: true),
        to storage: ServerStorage
    ) async throws -> [ChangeResult] {
        try await storage.applyChanges(
            changes.map {
                ChangeApplication(
                    appID: "checks",
                    change: $0,
                    carrier: $0.author,
                    receivedAt: Date(timeIntervalSince1970: 1_800_000_100)
                )
            },
            limit: limit
        ) { change, current throws(ChangeRejection) in
            try rules.check(change)
            return try FieldMerge.merge(change, into: current)
        }
    }

    @Test(
        "a batch ends its changes in order, each seeing the ones before it, a change in it twice ended once",
        arguments: Backend.available
    )
    func batchInOrder(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { _ in
            let storage = fixture.server.storage
            try await Self.seedCheck(storage)
            let first = Self.change(sequence: 1, ["status": "done"])
            let second = Self.change(sequence: 2, base: 2, ["reading": "8.1 bar"])
            let refused = Self.change(sequence: 3, base: 3, ["aircraft": "D-AIZZ"])
            let created = Self.change(sequence: 4, base: nil, entity: "A321-fuel", ["status": "open"])
            let bobs = Self.change("bob", sequence: 1, base: 1, ["reading": "7.5 bar", "note": "ok"])
            let results = try await Self.applyBatch([first, second, first, refused, created, bobs], to: storage)
            #expect(results.map(\.changeID) == [first, second, first, refused, created, bobs].map(\.id))
            #expect(results.map(\.outcome) == [.applied, .applied, .duplicate, .rejected, .applied, .conflict])
            #expect(results.map(\.version) == [2, 3, 2, nil, 1, 4])
            #expect(results[2].original == .applied)
            #expect(results[3].rejection?.code == .fieldNotWritable)
            #expect(results[5].conflicts.map(\.field) == ["reading"])
            let stored = try #require(try await Self.tyres(storage))
            #expect(stored.fields == ["status": "done", "reading": "8.1 bar", "note": "ok"])
            #expect(stored.version == 4)
            #expect(
                try await storage.entities(appID: "checks", entitySet: "checks").map(\.id) == [
                    "A320-tyres", "A321-fuel",
                ]
            )
            // The whole batch again: each change gets its first result, nothing changes.
            let again = try await Self.applyBatch([first, second, refused, created, bobs], to: storage)
            #expect(again.allSatisfy { $0.outcome == .duplicate })
            #expect(again.map(\.original) == [.applied, .applied, .rejected, .applied, .conflict])
            #expect(try #require(try await Self.tyres(storage)).version == 4)
        }
    }

    @Test(
        "batches of the same changes in different orders, through two servers at once, end each change once",
        arguments: Backend.available
    )
    func concurrentBatches(backend: Backend) async throws {
        try await Self.onTwoServers(backend) { storages in
            // 40 changes of four authors to two entity sets' entities, each to a field
            // of its own, in four batches of different orders, through either server.
            let changes = (0..<40).map { index in
                Change(
                    registrationID: "reg-\(index % 4)",
                    author: "user-\(index % 4)",
                    sequence: Int64(index / 4 + 1),
                    entitySet: index.isMultiple(of: 2) ? "checks" : "tasks",
                    entityID: "A320-tyres",
                    baseVersion: nil,
                    fields: ["n\(index)": "value \(index)"],
                    madeAt: Date(timeIntervalSince1970: 1_800_000_000)
                )
            }
            let rules = EntitySetRules(writableFields: Set((0..<40).map { "n\($0)" }), allowsCreation: true)
            let orders = [changes, changes.reversed(), changes.shuffled(), changes.shuffled()]
            let results = try await withThrowingTaskGroup(of: [ChangeResult].self) { group in
                for (index, order) in orders.enumerated() {
                    let storage = storages[index % 2]
                    group.addTask { try await Self.applyBatch(order, rules: rules, to: storage) }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            #expect(results.count == 160)
            let firsts = results.filter { $0.outcome != .duplicate }
            #expect(firsts.count == 40)
            #expect(Set(firsts.map(\.changeID)) == Set(changes.map(\.id)), "each change ended once")
            #expect(firsts.allSatisfy { $0.outcome == .applied })
            for set in ["checks", "tasks"] {
                let stored = try #require(
                    try await storages[0].entities(appID: "checks", entitySet: set).first {
                        $0.id == "A320-tyres"
                    }
                )
                #expect(stored.fields.count == (set == "checks" ? 22 : 20))
                #expect(stored.version == (set == "checks" ? 21 : 20), "\(set): one version per change")
            }
        }
    }

    @Test("the admin's puts give new versions to the fields they change or remove, only", arguments: Backend.available)
    func adminFieldVersions(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { _ in
            let storage = fixture.server.storage
            try await Self.seedCheck(storage)
            _ = try await storage.putEntity(
                EntityRecord(
                    appID: "checks",
                    entitySet: "checks",
                    id: "A320-tyres",
                    fields: ["status": "open", "note": "new"],
                    updatedAt: Date(timeIntervalSince1970: 1_800_000_050),
                    updatedBy: "admin"
                ),
                limit: 1000
            )
            let stored = try #require(try await Self.tyres(storage))
            #expect(stored.fieldVersions == ["status": 1, "reading": 2, "note": 2])
            // A device that based its edit on version 1 keeps its status, not the reading
            // the admin removed since.
            let result = try await Self.apply(
                Self.change(sequence: 1, ["status": "done", "reading": "8 bar"]),
                to: storage
            )
            #expect(result.outcome == .conflict)
            #expect(result.conflicts.map(\.field) == ["reading"])
        }
    }

    @Test(
        "the same changes sent at once through two servers on one database are each applied once",
        arguments: Backend.available
    )
    func concurrentServers(backend: Backend) async throws {
        try await Self.onTwoServers(backend) { storages in
            // 20 changes of four authors to one entity, each to a field of its own,
            // each sent three times, through either server.
            let changes = (0..<20).map { index in
                Self.change(
                    ["alice", "bob", "carol", "dave"][index % 4],
                    sequence: Int64(index / 4 + 1),
                    ["n\(index)": "value \(index)"]
                )
            }
            let rules = EntitySetRules(writableFields: Set((0..<20).map { "n\($0)" }))
            let results = try await withThrowingTaskGroup(of: ChangeResult.self) { group in
                for round in 0..<3 {
                    for (index, change) in changes.enumerated() {
                        let storage = storages[(index + round) % 2]
                        group.addTask { try await Self.apply(change, rules: rules, to: storage) }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.count == 60)
            #expect(results.filter { $0.outcome == .duplicate }.count == 40)
            let firsts = results.filter { $0.outcome != .duplicate }
            #expect(firsts.count == 20)
            #expect(Set(firsts.map(\.changeID)) == Set(changes.map(\.id)), "each change ended once")
            #expect(firsts.allSatisfy { $0.outcome == .applied })
            // The version rose once per change, and every field is there.
            let stored = try #require(try await Self.tyres(storages[0]))
            #expect(stored.version == 21)
            #expect(stored.fields.count == 22)
            #expect(Set(firsts.compactMap(\.version)) == Set(2...21), "each change saw the one before it")
        }
    }
}
