import Foundation
import GangwayServerStorage
import GangwayServerTesting
import GangwayTesting
import Testing

/// A read sees one state of the database: what it returns from two tables, or a list
/// with its count, never mixes a moment before a write with a moment after it.
@Suite("Storage reads are snapshots: a read never mixes two states, while writes go on", .tags(.postgres), .skipsTags)
struct ReadSnapshotTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// Makes 400 reads with `read` while `write` runs again and again beside them; what
    /// the reads found mixed (`read` says), and what states they saw.
    static func reads(
        while write: @escaping @Sendable (_ turn: Int) async throws -> Void,
        _ read: () async throws -> (mixed: [String], seen: String)
    ) async throws -> (mixed: [String], seen: Set<String>) {
        let writer = Task {
            var turn = 1
            while !Task.isCancelled {
                try await write(turn)
                turn += 1
            }
        }
        defer { writer.cancel() }
        var mixed: [String] = []
        var seen: Set<String> = []
        for _ in 0..<400 {
            let found = try await read()
            mixed += found.mixed
            seen.insert(found.seen)
        }
        writer.cancel()
        try await writer.value
        return (mixed, seen)
    }

    @Test(
        "an app is read with its own moment's email domains while its name and domains change together",
        arguments: Backend.available
    )
    func appWithItsDomains(backend: Backend) async throws {
        try await StorageUnderTest.withStorage(on: backend) { storage in
            let states = [
                AppRecord(
                    id: "checks",
                    name: "Left",
                    emailDomains: ["left.example", "l2.example"],
                    createdAt: Self.now
                ),
                AppRecord(id: "checks", name: "Right", emailDomains: ["right.example"], createdAt: Self.now),
            ]
            try await storage.insertApp(states[0])
            let (mixed, seen) = try await Self.reads(while: { try await storage.updateApp(states[$0 % 2]) }) {
                var mixed: [String] = []
                let app = try #require(try await storage.apps().first)
                if app.emailDomains != states.first(where: { $0.name == app.name })?.emailDomains.sorted() {
                    mixed.append("\(app.name): \(app.emailDomains)")
                }
                // By another way in: the app of a domain.
                if let other = try await storage.app(forEmailDomain: "right.example"), other.name != "Right" {
                    mixed.append("right.example read as \(other.name)'s, with \(other.emailDomains)")
                }
                return (mixed, app.name)
            }
            #expect(mixed.count == 0, "mixed reads, the first: \(mixed.prefix(3))")
            #expect(seen == ["Left", "Right"], "the reads saw both states")
        }
    }

    @Test(
        "the blocked users listed and how many are blocked agree while users are blocked and unblocked",
        arguments: Backend.available
    )
    func blockedUsersWithTheirCount(backend: Backend) async throws {
        try await StorageUnderTest.withStorage(on: backend) { storage in
            let users = (0..<4).map {
                UserRecord(username: "user\($0)", displayName: "User \($0)", passwordHash: "-", createdAt: Self.now)
            }
            for (index, user) in users.enumerated() {
                var user = user
                user.blocked = index < 2
                try await storage.insertUser(user)
            }
            let toggled = users[3]
            let (mixed, seen) = try await Self.reads(
                while: { turn in
                    var user = toggled
                    user.blocked = turn % 2 == 1
                    try await storage.updateUser(user)
                }
            ) {
                let (names, count) = try await storage.blockedUsers(limit: 10)
                return (names.count == count ? [] : ["\(names) with a count of \(count)"], "\(count)")
            }
            #expect(mixed.count == 0, "mixed reads, the first: \(mixed.prefix(3))")
            #expect(seen == ["2", "3"], "the reads saw both states")
        }
    }
}
