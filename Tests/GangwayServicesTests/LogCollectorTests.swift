import Foundation
import GangwayServices
import Logging
import Testing

@Suite("The app's log collector: bounded, by user, at the server's level")
struct LogCollectorTests {
    @Test func itKeepsTheNewestUpToItsCapacity() {
        let collector = LogCollector(capacity: 3)
        let user = UUID()
        collector.currentUser = user
        let logger = Logger(label: "app") { collector.handler(label: $0) }
        for number in 1...5 { logger.info("record \(number)") }
        #expect(collector.entries(for: user).map(\.record.message) == ["record 3", "record 4", "record 5"])
    }

    @Test func recordsBelongToTheUserCurrentWhenLoggedAndNoOneElse() {
        let collector = LogCollector()
        let logger = Logger(label: "app") { collector.handler(label: $0) }
        logger.info("before anyone")
        let (alice, bob) = (UUID(), UUID())
        collector.currentUser = alice
        logger.info("alice's")
        collector.currentUser = bob
        logger.info("bob's")
        #expect(collector.entries(for: alice).map(\.record.message) == ["alice's"])
        #expect(collector.entries(for: bob).map(\.record.message) == ["bob's"])
        collector.discard(user: bob)
        #expect(collector.entries(for: bob).isEmpty)
        #expect(collector.entries(for: alice).count == 1)
    }

    @Test func itKeepsNothingBelowItsLevelAndWritesMetadataSorted() throws {
        let collector = LogCollector()
        let user = UUID()
        collector.currentUser = user
        collector.minimumLevel = .notice
        var logger = Logger(label: "gangway.flows") { collector.handler(label: $0) }
        logger[metadataKey: "flow"] = "restore"
        logger.info("not kept")
        logger.notice("step failed", metadata: ["step": "2", "attempt": "1"])
        let entry = try #require(collector.entries(for: user).first)
        #expect(collector.entries(for: user).count == 1)
        #expect(entry.record.message == "step failed attempt=1 flow=restore step=2")
        #expect(entry.record.level == .notice)
        #expect(entry.record.source == "gangway.flows")
        collector.remove([entry.number])
        #expect(collector.entries(for: user).isEmpty)
    }
}
