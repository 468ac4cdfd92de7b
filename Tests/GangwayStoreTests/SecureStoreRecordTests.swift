import Foundation
import GRDB
import GangwayPolicy
import Testing

@_spi(Testing) @testable import GangwayStore

@Suite("Secure store records: values in collections, listed without the store's other entries")
struct SecureStoreRecordTests {
    @Test func recordsArePutListedCountedAndRemovedByCollection() throws {
        let fixture = try StoreFixture()
        let store = try fixture.location().create(protection: .passcode(StoreFixture.passcode))
        try store.put("an entry", forKey: "checks")
        try store.write { batch throws(SecureStoreError) in
            for index in 0..<300 { try batch.putRecord(Data("check \(index)".utf8), forKey: "c\(index)", in: "checks") }
            try batch.putRecord(Data("part".utf8), forKey: "c1", in: "parts")
        }
        #expect(try store.recordCount(in: "checks") == 300)
        #expect(try store.recordCount(in: "parts") == 1)
        #expect(try store.recordCount(in: "never") == 0)
        // The collections and the entries do not see each other.
        #expect(try store.keys() == ["checks"])
        #expect(try store.count() == 1)
        #expect(try store.record("c1", in: "checks") == Data("check 1".utf8))
        #expect(try store.record("c1", in: "parts") == Data("part".utf8))
        #expect(try store.record("checks", in: "checks") == nil)
        let listed = try store.records(in: "checks")
        #expect(Dictionary(uniqueKeysWithValues: listed.map { ($0.key, $0.value) }).count == 300)
        #expect(Set(listed.map(\.key)) == Set((0..<300).map { "c\($0)" }))
        #expect(listed.allSatisfy { String(decoding: $0.value, as: UTF8.self) == "check \($0.key.dropFirst())" })

        var answers: [Bool] = []
        try store.write { batch throws(SecureStoreError) in
            answers.append(try batch.removeRecord(forKey: "c0", in: "checks"))
            answers.append(try batch.removeRecord(forKey: "c0", in: "checks"))
            answers.append(try batch.removeRecord(forKey: "c1", in: "nowhere"))
            try batch.putRecord(Data("again".utf8), forKey: "c2", in: "checks")
        }
        #expect(answers == [true, false, false])
        #expect(try store.record("c0", in: "checks") == nil)
        #expect(try store.record("c2", in: "checks") == Data("again".utf8))
        store.close()

        // Kept across a lock; a collection removed whole, what the batch put after it stays.
        let reopened = try fixture.location().unlock(passcode: StoreFixture.passcode)
        defer { reopened.close() }
        #expect(try reopened.recordCount(in: "checks") == 299)
        try reopened.write { batch throws(SecureStoreError) in
            try batch.putRecord(Data("gone".utf8), forKey: "pending", in: "checks")
            try batch.removeRecords(in: "checks")
            try batch.putRecord(Data("new".utf8), forKey: "fresh", in: "checks")
        }
        #expect(try reopened.records(in: "checks").map(\.key) == ["fresh"])
        #expect(try reopened.recordCount(in: "parts") == 1)
        try reopened.removeAll()
        #expect(try reopened.recordCount(in: "parts") == 0 && reopened.recordCount(in: "checks") == 0)
    }

    @Test func aBatchOfRecordsLargerThanOneFlushCommitsAllOrNothing() throws {
        let fixture = try StoreFixture()
        let store = try fixture.location().create(protection: .noPasscode)
        defer { store.close() }
        let count = SecureStoreBatch.flushCount + 50
        try store.write { batch throws(SecureStoreError) in
            for index in 0..<count { try batch.putRecord(Data("v\(index)".utf8), forKey: "k\(index)", in: "big") }
            // Past the first flush: this rewrites and removes rows already written.
            try batch.putRecord(Data("rewritten".utf8), forKey: "k0", in: "big")
            try batch.removeRecord(forKey: "k1", in: "big")
        }
        #expect(try store.recordCount(in: "big") == count - 1)
        #expect(try store.record("k0", in: "big") == Data("rewritten".utf8))
        #expect(throws: SecureStoreError.invalidArgument) {
            try store.write { batch throws(SecureStoreError) in
                try batch.removeRecords(in: "big")
                for index in 0..<count { try batch.putRecord(Data("w\(index)".utf8), forKey: "k\(index)", in: "big") }
                try batch.putRecord(Data("x".utf8), forKey: "", in: "big")
            }
        }
        #expect(try store.recordCount(in: "big") == count - 1)
        #expect(try store.record("k2", in: "big") == Data("v2".utf8))
    }

    /// A store holding a record of Alice's and one of Bob's, closed, and its database.
    private func twoCollections() throws -> (StoreFixture, DatabaseQueue) {
        let fixture = try StoreFixture()
        let store = try fixture.location().create(protection: .passcode(StoreFixture.passcode))
        try store.write { batch throws(SecureStoreError) in
            try batch.putRecord(Data("station 12".utf8), forKey: "a", in: "alice")
            try batch.putRecord(Data("station 14".utf8), forKey: "b", in: "bob")
        }
        store.close()
        return (fixture, try DatabaseQueue(path: fixture.databaseURL.path))
    }

    @Test func aRecordMovedToAnotherCollectionFailsToOpen() throws {
        let (fixture, queue) = try twoCollections()
        // Both records put in one of the two collections, under their own tags: listing it
        // finds a record that is not its own.
        try queue.write { db in
            let collections = try Data.fetchAll(db, sql: "SELECT DISTINCT collection FROM record")
            #expect(collections.count == 2)
            try db.execute(sql: "UPDATE record SET collection = ?", arguments: [collections[0]])
        }
        let store = try fixture.location().unlock(passcode: StoreFixture.passcode)
        defer { store.close() }
        #expect(throws: SecureStoreError.integrityFailure) {
            _ = try store.records(in: "alice")
            _ = try store.records(in: "bob")
        }
    }

    @Test func aRecordMovedToAnotherKeyFailsToOpen() throws {
        let (fixture, queue) = try twoCollections()
        // One record's sealed box under the other's tag too.
        try queue.write { db in
            try db.execute(sql: "UPDATE record SET sealed = (SELECT MIN(sealed) FROM record)")
        }
        let store = try fixture.location().unlock(passcode: StoreFixture.passcode)
        defer { store.close() }
        #expect(throws: SecureStoreError.integrityFailure) {
            _ = try store.record("a", in: "alice")
            _ = try store.record("b", in: "bob")
        }
        #expect(throws: SecureStoreError.integrityFailure) {
            _ = try store.records(in: "alice")
            _ = try store.records(in: "bob")
        }
    }

    @Test func namesAndValuesAreNotInTheFilesAndBadNamesAreRefused() throws {
        let fixture = try StoreFixture()
        let store = try fixture.location().create(protection: .noPasscode)
        try store.write { batch throws(SecureStoreError) in
            try batch.putRecord(Data("tyre pressure open".utf8), forKey: "F-GKXA-tyres", in: "stations/CDG")
        }
        for (key, collection) in [
            ("", "checks"), ("k", ""), ("k", "a\u{0}b"), ("k", String(repeating: "c", count: 1_025)),
        ] {
            #expect(throws: SecureStoreError.invalidArgument) {
                try store.write { batch throws(SecureStoreError) in
                    try batch.putRecord(Data(), forKey: key, in: collection)
                }
            }
            #expect(SecureStore.problem(withRecord: key, in: collection) != nil)
        }
        #expect(throws: SecureStoreError.invalidArgument) {
            try store.write { batch throws(SecureStoreError) in
                try batch.putRecord(Data(), forKey: String(repeating: "k", count: 65_535), in: "checks")
            }
        }
        #expect(try store.recordCount(in: "checks") == 0)
        store.close()
        for file in try FileManager.default.contentsOfDirectory(at: fixture.directory, includingPropertiesForKeys: nil)
        {
            let bytes = try Data(contentsOf: file)
            for clear in ["tyre pressure", "F-GKXA", "stations/CDG"] {
                #expect(bytes.range(of: Data(clear.utf8)) == nil, "\(clear) in \(file.lastPathComponent)")
            }
        }
    }
}

@Suite("Secure store records: a store of the first format")
struct SecureStoreRecordFormatTests {
    @Test func aStoreWithoutRecordsGainsThemWhenItOpensAndKeepsItsEntries() throws {
        let fixture = try StoreFixture()
        let store = try fixture.location().create(protection: .passcode(StoreFixture.passcode))
        try store.put("kept", forKey: "entry")
        store.close()
        // As the first format left it: no record table, its migration never run.
        try DatabaseQueue(path: fixture.databaseURL.path).write { db in
            try db.execute(sql: "DROP TABLE record; DELETE FROM grdb_migrations WHERE identifier = 'v2-records'")
        }
        let reopened = try fixture.location().unlock(passcode: StoreFixture.passcode)
        defer { reopened.close() }
        #expect(try reopened.string(forKey: "entry") == "kept")
        try reopened.write { batch throws(SecureStoreError) in try batch.putRecord(Data("r".utf8), forKey: "k", in: "c")
        }
        #expect(try reopened.record("k", in: "c") == Data("r".utf8))
    }
}
