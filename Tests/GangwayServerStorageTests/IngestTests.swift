import Foundation
import GangwayProtocol
import GangwayServerTesting
import GangwayTesting
import Testing

@testable import GangwayServerStorage

@Suite(
    "An ingest batch: its rows apply once by line, each entity at one position, refusals said row by row",
    .tags(.postgres),
    .skipsTags
)
struct IngestTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func put(_ line: Int, _ id: String, _ fields: [String: String]) -> IngestRow {
        IngestRow(line: line, id: id, fields: fields)
    }

    /// A digest standing for a batch's lines through `line` (the storage compares them,
    /// never computes them).
    static func digest(_ line: Int, _ batch: String = "batch-1") -> String? {
        line == 0 ? nil : "\(batch)@\(line)"
    }

    /// Ingests `rows` as the part of the batch's lines `after + 1` through the last row's.
    static func ingest(
        _ storage: ServerStorage,
        _ rows: [IngestRow],
        after: Int = 0,
        unreadable: [IngestRefusal] = [],
        batch: String = "batch-1",
        limit: Int = 100
    ) async throws -> IngestProgress {
        let through = max(rows.map(\.line).max() ?? after, unreadable.map(\.line).max() ?? after)
        let part = IngestPart(
            after: after,
            digestBefore: digest(after, batch),
            rows: rows,
            unreadable: unreadable,
            through: through,
            digest: digest(through, batch)!
        )
        return try await storage.ingest(
            part,
            into: "checks",
            of: "checks",
            batch: batch,
            limit: limit,
            by: "admin",
            at: now
        )
    }

    /// The set as a reader from nothing sees it: each entity's ID and fields.
    static func entities(_ storage: ServerStorage) async throws -> [String: [String: String]] {
        Dictionary(
            uniqueKeysWithValues: try await storage.entities(appID: "checks", entitySet: "checks").map {
                ($0.id, $0.fields)
            }
        )
    }

    @Test(
        "rows apply in line order; a part sent again applies nothing; each entity takes one position",
        arguments: Backend.available
    )
    func partsApplyOnce(backend: Backend) async throws {
        try await StorageUnderTest.withStorage(on: backend) { storage in
            try await storage.insertApp(AppRecord(id: "checks", name: "Checks", createdAt: Self.now))
            _ = try await storage.putEntity(
                EntityRecord(
                    appID: "checks",
                    entitySet: "checks",
                    id: "c",
                    fields: ["status": "old"],
                    updatedAt: Self.now,
                    updatedBy: "admin"
                ),
                limit: 100
            )
            let first = [
                Self.put(1, "a", ["status": "open"]), Self.put(2, "b", ["status": "open"]),
                Self.put(3, "a", ["status": "done"]), IngestRow(line: 4, id: "c", fields: nil),
                IngestRow(line: 5, id: "nothing", fields: nil),
            ]
            let progress = try await Self.ingest(storage, first)
            #expect(progress == IngestProgress(linesDone: 5, written: 2, removed: 1, digest: Self.digest(5)))
            #expect(try await Self.entities(storage) == ["a": ["status": "done"], "b": ["status": "open"]])
            // One position per entity changed, in the order of its last row: b, a, then c's removal.
            let log = try await storage.entityLog(
                appID: "checks",
                entitySet: "checks",
                after: 1,
                through: nil,
                includingRemovals: true,
                limit: 100
            )
            #expect(log.entries.map(\.id) == ["b", "a", "c"])
            #expect(log.lastPosition == 4)

            // The same part again (a retry after a lost answer): nothing applies twice.
            #expect(try await Self.ingest(storage, first) == progress)
            #expect(
                try await storage.entityLog(
                    appID: "checks",
                    entitySet: "checks",
                    after: 0,
                    through: nil,
                    includingRemovals: true,
                    limit: 100
                ).lastPosition == 4
            )
            // A part that overlaps, or one read against another digest: refused whole.
            let overlap = try await #require(throws: StorageError.self) {
                try await Self.ingest(
                    storage,
                    [Self.put(5, "d", ["status": "x"]), Self.put(6, "e", ["status": "x"])],
                    after: 4
                )
            }
            #expect(overlap.code == .conflict)
            let otherRows = try await #require(throws: StorageError.self) {
                try await Self.ingest(storage, [Self.put(6, "e", ["status": "x"])], after: 5, batch: "elsewhere")
            }
            #expect(otherRows.code == .conflict)
            #expect(try await Self.entities(storage).keys.sorted() == ["a", "b"])
            // The next part, on top of the first.
            let next = try await Self.ingest(storage, [Self.put(6, "e", ["status": "open"])], after: 5)
            #expect(next == IngestProgress(linesDone: 6, written: 3, removed: 1, digest: Self.digest(6)))
            #expect(try await Self.entities(storage).keys.sorted() == ["a", "b", "e"])
            #expect(try await storage.ingestProgress(of: "batch-1", into: "checks", of: "checks") == next)
            // Another batch ID starts from its own first line.
            let other = try await Self.ingest(storage, [Self.put(1, "a", ["status": "again"])], batch: "batch-2")
            #expect(other == IngestProgress(linesDone: 1, written: 1, digest: Self.digest(1, "batch-2")))
            let a = try #require(
                try await storage.entities(appID: "checks", entitySet: "checks").first { $0.id == "a" }
            )
            #expect(a.version == 2 && a.fields == ["status": "again"])
            // A removed entity (its row kept as a tombstone) put again comes back, and a
            // new one beside it is added: each path of the write, in one part.
            let back = try await Self.ingest(
                storage,
                [Self.put(2, "c", ["status": "back"]), Self.put(3, "f", ["status": "new"])],
                after: 1,
                batch: "batch-2"
            )
            #expect(back.written == 3)
            let held = try await Self.entities(storage)
            #expect(held["c"] == ["status": "back"] && held["f"] == ["status": "new"] && held.count == 5)
        }
    }

    @Test(
        "a row the schema refuses, or one past a full set, is refused alone with its reason",
        arguments: Backend.available
    )
    func refusalsRowByRow(backend: Backend) async throws {
        try await StorageUnderTest.withStorage(on: backend) { storage in
            try await storage.insertApp(AppRecord(id: "checks", name: "Checks", createdAt: Self.now))
            let schema = try EntitySchema(fields: [
                EntityField("status", .text, required: true), EntityField("value", .integer),
            ])
            #expect(try await storage.setEntitySchema(schema, appID: "checks", entitySet: "checks") == nil)
            let progress = try await Self.ingest(
                storage,
                [
                    Self.put(1, "a", ["status": "open", "value": "7"]), Self.put(2, "b", ["value": "7"]),
                    Self.put(3, "c", ["status": "open", "value": "seven"]), Self.put(5, "d", ["status": "open"]),
                    Self.put(6, "e", ["status": "open"]), Self.put(7, "a", ["status": "done"]),
                ],
                unreadable: [IngestRefusal(line: 4, id: "", code: "INVALID_LINE", message: "Not JSON.")],
                limit: 2
            )
            #expect(progress.linesDone == 7 && progress.written == 2 && progress.refusedCount == 4)
            #expect(progress.refused.map(\.line) == [2, 3, 4, 6])
            #expect(
                progress.refused.map(\.code) == [
                    "FIELD_NOT_VALID", "FIELD_NOT_VALID", "INVALID_LINE", "ENTITY_SET_FULL",
                ]
            )
            #expect(progress.refused.allSatisfy { !$0.message.isEmpty })
            #expect(try await Self.entities(storage) == ["a": ["status": "done"], "d": ["status": "open"]])
            // Read back as it was kept.
            #expect(try await storage.ingestProgress(of: "batch-1", into: "checks", of: "checks") == progress)
            #expect(try await storage.ingestProgress(of: "unknown", into: "checks", of: "checks") == nil)
            // Kept a month past its last part, then purged: its ID starts a new batch.
            try await storage.purgeExpired(at: Self.now.addingTimeInterval(29 * 24 * 60 * 60))
            #expect(try await storage.ingestProgress(of: "batch-1", into: "checks", of: "checks") == progress)
            try await storage.purgeExpired(at: Self.now.addingTimeInterval(31 * 24 * 60 * 60))
            #expect(try await storage.ingestProgress(of: "batch-1", into: "checks", of: "checks") == nil)
            #expect(try await Self.entities(storage).count == 2)
        }
    }

    @Test(
        "a set grown past the statistics' size by bulk parts is still looked up by ID, part after part",
        arguments: Backend.available
    )
    func aSetPastItsStatistics(backend: Backend) async throws {
        try await StorageUnderTest.withStorage(on: backend) { storage in
            try await storage.insertApp(AppRecord(id: "checks", name: "Checks", createdAt: Self.now))
            let parts = ServerStorage.staleStatisticsRows / 5_000 + 2
            var progress = IngestProgress()
            for part in 0..<parts {
                let rows = (1...5_000).map { index in
                    let line = part * 5_000 + index
                    // After the first, each part changes the first 1,000 entities and adds 4,000.
                    let id = index <= 1_000 ? "check-\(index)" : "check-\(line)"
                    return Self.put(line, id, ["status": "open", "part": "\(part)"])
                }
                progress = try await Self.ingest(storage, rows, after: part * 5_000, limit: 1_000_000)
            }
            #expect(progress.linesDone == parts * 5_000 && progress.refusedCount == 0)
            #expect(progress.written == parts * 5_000)
            var count = 0
            var after: String?
            var first: EntityRecord?
            repeat {
                let page = try await storage.entities(appID: "checks", entitySet: "checks", after: after, limit: 1_000)
                count += page.entities.count
                first = first ?? page.entities.first
                after = page.more ? page.entities.last?.id : nil
            } while after != nil
            #expect(count == 5_000 + (parts - 1) * 4_000)
            // A changed entity holds its last part's fields, at a version a part.
            #expect(first?.id == "check-1" && first?.fields == ["status": "open", "part": "\(parts - 1)"])
            #expect(first?.version == Int64(parts))
        }
    }

    @Test(
        "a part of thousands of rows writes them in statements of a few hundred, one transaction",
        arguments: Backend.available
    )
    func aLargePart(backend: Backend) async throws {
        try await StorageUnderTest.withStorage(on: backend) { storage in
            try await storage.insertApp(AppRecord(id: "checks", name: "Checks", createdAt: Self.now))
            let rows = (1...2_345).map { Self.put($0, "check-\($0)", ["status": "open", "n": "\($0)"]) }
            let progress = try await Self.ingest(storage, rows, limit: 10_000)
            #expect(progress == IngestProgress(linesDone: 2_345, written: 2_345, digest: Self.digest(2_345)))
            let entities = try await Self.entities(storage)
            #expect(entities.count == 2_345 && entities["check-1234"] == ["status": "open", "n": "1234"])
        }
    }
}
