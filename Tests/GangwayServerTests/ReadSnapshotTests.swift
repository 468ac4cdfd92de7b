import Foundation
import GangwayServerStorage
import Testing

/// A read sees one state of the database: what it returns from two tables, or a list
/// with its count, never mixes a moment before a write with a moment after it.
@Suite("Storage reads are snapshots: a read never mixes two states, while writes go on")
struct ReadSnapshotTests {
    /// How many reads each test makes while the writer changes what they read.
    static let reads = 400

    @Test(
        "an app is read with its own moment's email domains while its name and domains change together",
        arguments: Backend.available
    )
    func appWithItsDomains(backend: Backend) async throws {
        try await StorageUnderTest.withStorage(on: backend) { storage in
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            let states = [
                AppRecord(id: "checks", name: "Left", emailDomains: ["left.example", "left2.example"], createdAt: now),
                AppRecord(id: "checks", name: "Right", emailDomains: ["right.example"], createdAt: now),
            ]
            try await storage.insertApp(states[0])
            let writer = Task {
                var turn = 1
                while !Task.isCancelled {
                    try await storage.updateApp(states[turn % 2])
                    turn += 1
                }
            }
            defer { writer.cancel() }
            var mixed: [String] = []
            var seen: Set<String> = []
            for _ in 0..<Self.reads {
                for app in try await storage.apps() {
                    seen.insert(app.name)
                    let expected = states.first { $0.name == app.name }?.emailDomains
                    if app.emailDomains != expected { mixed.append("\(app.name): \(app.emailDomains)") }
                }
                // By another way in: the app of a domain.
                if let app = try await storage.app(forEmailDomain: "right.example"), app.name != "Right" {
                    mixed.append("right.example read as \(app.name)'s, with \(app.emailDomains)")
                }
            }
            writer.cancel()
            _ = await writer.result
            #expect(mixed.isEmpty, "\(mixed.count) mixed reads, the first: \(mixed.prefix(3))")
            #expect(seen.count == 2, "the reads saw both states: \(seen)")
        }
    }

    @Test(
        "the blocked users listed and how many are blocked agree while users are blocked and unblocked",
        arguments: Backend.available
    )
    func blockedUsersWithTheirCount(backend: Backend) async throws {
        try await StorageUnderTest.withStorage(on: backend) { storage in
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            var users = (0..<4).map {
                UserRecord(
                    username: "user\($0)",
                    displayName: "User \($0)",
                    passwordHash: "-",
                    blocked: $0 < 2,
                    createdAt: now
                )
            }
            for user in users { try await storage.insertUser(user) }
            let toggled = users[3]
            let writer = Task {
                var user = toggled
                while !Task.isCancelled {
                    user.blocked.toggle()
                    try await storage.updateUser(user)
                }
            }
            defer { writer.cancel() }
            var mixed: [String] = []
            var counts: Set<Int> = []
            for _ in 0..<Self.reads {
                let (names, count) = try await storage.blockedUsers(limit: 10)
                counts.insert(count)
                if names.count != count { mixed.append("\(names) with a count of \(count)") }
            }
            writer.cancel()
            _ = await writer.result
            users.removeAll()
            #expect(mixed.isEmpty, "\(mixed.count) mixed reads, the first: \(mixed.prefix(3))")
            #expect(counts == [2, 3], "the reads saw both states: \(counts)")
        }
    }
}
