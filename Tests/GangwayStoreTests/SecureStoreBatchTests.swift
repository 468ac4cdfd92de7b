import Foundation
import GRDB
import GangwayPolicy
import Testing

@_spi(Testing) @testable import GangwayStore

@Suite("Secure store batches")
struct SecureStoreBatchTests {
    @Test func putsAndRemovesInOneBatchApplyInOrder() throws {
        let fixture = try StoreFixture()
        let store = try fixture.location().create(protection: .passcode(StoreFixture.passcode))
        defer { store.close() }
        try store.put("committed", forKey: "old")
        var answers: [Bool] = []
        try store.write { batch throws(SecureStoreError) in
            try batch.put("1", forKey: "a")
            answers.append(try batch.removeValue(forKey: "a"))  // pending: true
            answers.append(try batch.removeValue(forKey: "a"))  // gone: false
            try batch.put("2", forKey: "a")
            try batch.put("3", forKey: "b")
            try batch.put("4", forKey: "b")
            answers.append(try batch.removeValue(forKey: "old"))  // committed earlier: true
            answers.append(try batch.removeValue(forKey: "never"))  // false
            try batch.put("5", forKey: "old")
            answers.append(try batch.removeValue(forKey: "old"))  // pending again: true
        }
        #expect(answers == [true, false, true, false, true])
        #expect(try store.keys() == ["a", "b"])
        #expect(try store.string(forKey: "a") == "2")
        #expect(try store.string(forKey: "b") == "4")
    }

    @Test func aBatchLargerThanOneFlushKeepsEveryValueAndTheLastWriteWins() throws {
        let fixture = try StoreFixture()
        let store = try fixture.location().create(protection: .passcode(StoreFixture.passcode))
        let count = SecureStoreBatch.flushCount + 100
        try store.put("before", forKey: "flushed.then.removed")
        try store.write { batch throws(SecureStoreError) in
            for index in 0..<count { try batch.put("value \(index)", forKey: "entry.\(index)") }
            // Past the first flush: these change rows already written in this transaction.
            try batch.put("rewritten", forKey: "entry.0")
            try batch.removeValue(forKey: "entry.1")
            try batch.removeValue(forKey: "flushed.then.removed")
        }
        store.close()

        let reopened = try fixture.location().unlock(passcode: StoreFixture.passcode)
        defer { reopened.close() }
        #expect(try reopened.count() == count - 1)
        #expect(try reopened.string(forKey: "entry.0") == "rewritten")
        #expect(try reopened.string(forKey: "entry.1") == nil)
        #expect(try reopened.string(forKey: "flushed.then.removed") == nil)
        #expect(try reopened.string(forKey: "entry.\(count - 1)") == "value \(count - 1)")
        #expect(try reopened.string(forKey: "entry.\(count / 2)") == "value \(count / 2)")
    }

    @Test func aBatchThatFailsAfterAFlushLeavesNothingBehind() throws {
        let fixture = try StoreFixture()
        let store = try fixture.location().create(protection: .passcode(StoreFixture.passcode))
        defer { store.close() }
        try store.put("kept", forKey: "entry.0")
        let large = Data(repeating: 0xA5, count: 1 << 20)
        #expect(throws: SecureStoreError.invalidArgument) {
            try store.write { batch throws(SecureStoreError) in
                // 17 MiB: past the byte limit, so part of the batch is already written.
                for index in 0..<17 { try batch.put(large, forKey: "entry.\(index)") }
                try batch.put("x", forKey: "")
            }
        }
        #expect(try store.keys() == ["entry.0"])
        #expect(try store.string(forKey: "entry.0") == "kept")
    }

    @Test func largeValuesRoundTrip() throws {
        let fixture = try StoreFixture()
        let store = try fixture.location().create(protection: .passcode(StoreFixture.passcode))
        defer { store.close() }
        let values = (0..<20).map { index in Data(repeating: UInt8(index), count: (1 << 20) + index) }
        try store.write { batch throws(SecureStoreError) in
            for (index, value) in values.enumerated() { try batch.put(value, forKey: "blob.\(index)") }
        }
        for (index, value) in values.enumerated() {
            #expect(try store.data(forKey: "blob.\(index)") == value)
        }
    }

    @Test func everySealedValueHasItsOwnNonce() throws {
        let fixture = try StoreFixture()
        let store = try fixture.location().create(protection: .passcode(StoreFixture.passcode))
        try store.write { batch throws(SecureStoreError) in
            for index in 0..<2_000 { try batch.put("same value", forKey: "entry.\(index)") }
        }
        try store.write { batch throws(SecureStoreError) in
            for index in 0..<10 { try batch.put("same value", forKey: "single.\(index)") }
        }
        store.close()
        let sealed = try DatabaseQueue(path: fixture.databaseURL.path).read { db in
            try Data.fetchAll(db, sql: "SELECT sealed FROM entry")
        }
        #expect(sealed.count == 2_010)
        let nonces = Set(sealed.map { $0.prefix(StoreKeys.nonceSize) })
        #expect(nonces.count == sealed.count)
    }

    @Test func aKeyNameLongerThanTheLimitIsRejected() throws {
        let fixture = try StoreFixture()
        let store = try fixture.location().create(protection: .passcode(StoreFixture.passcode))
        defer { store.close() }
        let longest = String(repeating: "k", count: StoreKeys.maximumNameBytes)
        try store.put("fits", forKey: longest)
        #expect(try store.string(forKey: longest) == "fits")
        #expect(throws: SecureStoreError.invalidArgument) { try store.put("no", forKey: longest + "k") }
        #expect(try store.count() == 1)
    }
}
