import Foundation
import GangwayProtocol
import GangwayServerTesting
import GangwayTesting
import Testing

@testable import GangwayServerStorage

/// A set with a subset is read in parts: each reader's log holds the entities of its
/// values, and an entity that moves out of them is a removal in it.
@Suite(
    "A user's part of a set: the log of their values, with moves out of them as removals",
    .tags(.postgres),
    .skipsTags
)
struct EntitySubsetLogTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func check(_ id: String, stand: String?, status: String = "open") -> EntityRecord {
        var fields = ["status": status]
        fields["stand"] = stand
        return EntityRecord(
            appID: "checks",
            entitySet: "checks",
            id: id,
            fields: fields,
            updatedAt: now,
            updatedBy: "admin"
        )
    }

    static var schema: EntitySchema {
        get throws {
            try EntitySchema(
                fields: [EntityField("stand", .text), EntityField("status", .text)],
                subset: EntitySubset(field: "stand", attribute: "stands")
            )
        }
    }

    /// A reader of `values` from `after`, through the set's last position: what it sees,
    /// `+id` written and `-id` removed, and where it stands.
    static func read(
        _ storage: ServerStorage,
        _ values: Set<String>?,
        after: Int64,
        removals: Bool = true
    ) async throws -> (seen: [String], last: Int64) {
        var (seen, cursor) = ([String](), after)
        while true {
            let page = try await storage.entityLog(
                appID: "checks",
                entitySet: "checks",
                after: cursor,
                through: nil,
                includingRemovals: removals,
                subset: values,
                limit: 2
            )
            for entry in page.entries {
                switch entry {
                case .written(let entity): seen.append("+" + entity.id)
                case .removed(let id, _, _): seen.append("-" + id)
                }
            }
            cursor = page.entries.last?.position ?? cursor
            if !page.hasMore { return (seen, page.lastPosition) }
        }
    }

    @Test(
        "each reader sees its values; a move out is a removal for the old value's readers only",
        arguments: Backend.available
    )
    func partsAndMoves(backend: Backend) async throws {
        try await StorageUnderTest.withStorage(on: backend) { storage in
            try await storage.insertApp(AppRecord(id: "checks", name: "Checks", createdAt: Self.now))
            #expect(try await storage.setEntitySchema(try Self.schema, appID: "checks", entitySet: "checks") == nil)
            for (id, stand) in [("a", "12"), ("b", "14"), ("c", "12"), ("d", nil)] {
                _ = try await storage.putEntity(Self.check(id, stand: stand), limit: 100)
            }
            #expect(try await Self.read(storage, ["12"], after: 0, removals: false).seen == ["+a", "+c"])
            #expect(try await Self.read(storage, ["14"], after: 0).seen == ["+b"])
            #expect(try await Self.read(storage, ["12", "14"], after: 0).seen == ["+a", "+b", "+c"])
            #expect(try await Self.read(storage, [], after: 0).seen == [])
            #expect(try await Self.read(storage, nil, after: 0).seen == ["+a", "+b", "+c", "+d"], "the whole set")
            let cursor = try await Self.read(storage, nil, after: 0).last

            // a moves to 14, c is edited in place, b is removed, d enters 12.
            _ = try await storage.putEntity(Self.check("a", stand: "14"), limit: 100)
            _ = try await storage.putEntity(Self.check("c", stand: "12", status: "done"), limit: 100)
            #expect(try await storage.deleteEntity(appID: "checks", entitySet: "checks", id: "b", at: Self.now))
            _ = try await storage.putEntity(Self.check("d", stand: "12"), limit: 100)
            #expect(try await Self.read(storage, ["12"], after: cursor).seen == ["-a", "+c", "+d"])
            #expect(try await Self.read(storage, ["14"], after: cursor).seen == ["+a", "-b"])
            #expect(try await Self.read(storage, ["12", "14"], after: cursor).seen == ["+a", "+c", "-b", "+d"])

            // A device change that moves an entity goes the same way.
            let moved = try await storage.applyChanges(
                [Self.application(entity: "c", fields: ["stand": "14"])],
                limit: 100
            ) { change, current throws(ChangeRejection) in try FieldMerge.merge(change, into: current) }
            #expect(moved.first?.outcome == .applied)
            let second = try await Self.read(storage, nil, after: 0).last
            #expect(try await Self.read(storage, ["12"], after: second - 1).seen == ["-c"])
            #expect(try await Self.read(storage, ["14"], after: second - 1).seen == ["+c"])

            // Moves are forgotten with the removals, and the set says how far.
            #expect(try await storage.purgeRemovals(before: Self.now.addingTimeInterval(1)) == 1)
            let page = try await storage.entityLog(
                appID: "checks",
                entitySet: "checks",
                after: 0,
                through: nil,
                includingRemovals: true,
                subset: ["12"],
                limit: 100
            )
            #expect(page.purgedThrough == second)
            #expect(page.entries.allSatisfy { if case .written = $0 { true } else { false } })
        }
    }

    @Test(
        "a new subset field keys every entity again; without a subset the set is one part",
        arguments: Backend.available
    )
    func subsetChanges(backend: Backend) async throws {
        try await StorageUnderTest.withStorage(on: backend) { storage in
            try await storage.insertApp(AppRecord(id: "checks", name: "Checks", createdAt: Self.now))
            for (id, stand, status) in [("a", "12", "open"), ("b", "14", "done"), ("c", "12", "")] {
                _ = try await storage.putEntity(Self.check(id, stand: stand, status: status), limit: 100)
            }
            #expect(try await storage.setEntitySchema(try Self.schema, appID: "checks", entitySet: "checks") == nil)
            #expect(try await Self.read(storage, ["12"], after: 0).seen == ["+a", "+c"])
            let byStatus = try EntitySchema(
                fields: try Self.schema.fields,
                subset: EntitySubset(field: "status", attribute: "s")
            )
            #expect(try await storage.setEntitySchema(byStatus, appID: "checks", entitySet: "checks") == nil)
            #expect(try await Self.read(storage, ["open", "done"], after: 0).seen == ["+a", "+b"])
            #expect(try await Self.read(storage, ["12"], after: 0).seen == [])
            let whole = try EntitySchema(fields: try Self.schema.fields)
            #expect(try await storage.setEntitySchema(whole, appID: "checks", entitySet: "checks") == nil)
            #expect(try await Self.read(storage, ["open"], after: 0).seen == [], "no entity holds a key")
            #expect(try await Self.read(storage, nil, after: 0).seen == ["+a", "+b", "+c"])
        }
    }

    static func application(entity: String, fields: [String: String]) -> ChangeApplication {
        ChangeApplication(
            appID: "checks",
            change: Change(
                registrationID: "r1",
                author: "alice",
                sequence: 1,
                entitySet: "checks",
                entityID: entity,
                baseVersion: 2,
                fields: fields,
                madeAt: now
            ),
            carrier: "alice",
            receivedAt: now
        )
    }
}
