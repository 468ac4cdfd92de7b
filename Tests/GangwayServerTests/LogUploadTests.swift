import Foundation
import GangwayProtocol
import GangwayServer
import GangwayServerStorage
import GangwayServerTesting
import GangwayTesting
import HTTPTypes
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Log upload", .servingTurn, .tags(.postgres), .skipsTags)
struct LogUploadTests {
    static let entries = """
        {"entries": [
          {"time": "2026-11-22T06:00:00Z", "level": "info", "message": "opened checks", "source": "app"},
          {"time": "2026-11-22T06:01:00.250+02:00", "level": "error",
           "message": "sync\\u0000failed\\u001b]0;pwned\\u0007\\u001b[2J\\u009b1A\\u202e\\tat line 2\\nnext"}
        ]}
        """

    @Test("one person's large bodies half sent hold four places, whatever their sessions; anyone else's go on")
    func largeBodiesPerPerson() async throws {
        try await ServerFixture(over: .loopback).runSeeded { api in
            let alice = try await api.signIn("alice")
            _ = try await api.register(token: alice)
            let aliceAgain = try await api.signIn("alice", device: "alice-phone")
            let bob = try await api.signIn("bob")
            _ = try await api.register(token: bob)
            // A body past 16 KiB: 20 KiB of one entry's message.
            let large =
                #"{"entries": [{"time": "2026-11-22T06:00:00Z", "level": "info", "message": ""#
                + String(repeating: "m", count: 20 << 10) + #""}]}"#
            var held: [Int32] = []
            defer { held.forEach { close($0) } }
            let port = api.running.port
            for _ in 0..<4 {
                let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                held.append(socket)
                try await onOwnThread {
                    try DestinationTests.connect(socket, port: port)
                    let head =
                        "POST /apps/checks/logs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(alice)\r\n"
                        + "Content-Type: application/json\r\nContent-Length: \(1 << 20)\r\n\r\n{\"entries\": ["
                    _ = head.withCString { send(socket, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
                }
            }
            // Her four places are taken, also for her other session: once the server has
            // read the four heads, which a loaded machine may keep it from for a moment
            // (until then her other session, on a device never registered, is told so).
            var refused = try await api.send(.post, "/apps/checks/logs", token: aliceAgain, json: large)
            for _ in 0..<100 where refused.status != .tooManyRequests {
                try await Task.sleep(for: .milliseconds(100))
                refused = try await api.send(.post, "/apps/checks/logs", token: aliceAgain, json: large)
            }
            #expect(
                refused.status == .tooManyRequests && refused.code == "TOO_MANY_BODIES",
                "\(refused.status) \(refused.text); the held connections were answered: \(Self.answered(held))"
            )
            #expect(refused.headers[.retryAfter] == "1")
            // A small body takes no place.
            #expect(
                try await api.send(.post, "/apps/checks/logs", token: alice, json: Self.entries).status
                    != .tooManyRequests
            )
            // Bob's large body is read as ever.
            let bobs = try await api.send(.post, "/apps/checks/logs", token: bob, json: large)
            #expect(bobs.status != .tooManyRequests && bobs.status != .contentTooLarge, "\(bobs.text)")
            // Her connections closed, her places come back.
            held.forEach { close($0) }
            held = []
            var status = HTTPResponse.Status.tooManyRequests
            for _ in 0..<100 where status == .tooManyRequests {
                status = try await api.send(.post, "/apps/checks/logs", token: alice, json: large).status
                if status == .tooManyRequests { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(status != .tooManyRequests)
        }
    }

    /// What the server has written to each of `sockets` so far, its first line (`-` when
    /// nothing, `closed` when it closed the connection): a held body should have nothing.
    static func answered(_ sockets: [Int32]) -> [String] {
        sockets.map { socket in
            var bytes = [UInt8](repeating: 0, count: 256)
            let count = recv(socket, &bytes, bytes.count, Int32(MSG_DONTWAIT | MSG_PEEK))
            guard count != 0 else { return "closed" }
            guard count > 0 else { return "-" }
            return String(decoding: bytes[..<count], as: UTF8.self).split(separator: "\r\n").first.map(String.init)
                ?? ""
        }
    }

    @Test("refused with 409 while the app's log settings turn it off", arguments: Backend.available)
    func disabled(backend: Backend) async throws {
        try await ServerFixture(backend: backend).runSeeded { api in
            let token = try await api.signIn("alice")
            _ = try await api.register(token: token)
            let reply = try await api.send(.post, "/apps/checks/logs", token: token, json: Self.entries)
            #expect(reply.status == .conflict)
            #expect(reply.code == "LOG_UPLOAD_DISABLED")
        }
    }

    @Test("stored with the uploader's user and device; the admin reads them newest first", arguments: Backend.available)
    func upload(backend: Backend) async throws {
        try await ServerFixture(backend: backend).runSeeded { api in
            try api.expectStatus(
                try await api.admin(
                    .patch,
                    "/admin/apps/checks",
                    json: #"{"settings": {"logSettings": {"logEnabled": true, "maxEntriesPerUpload": 2}}}"#
                ),
                .ok
            )
            let token = try await api.signIn("alice")
            // Without a registration, nothing is taken.
            #expect(
                try await api.send(.post, "/apps/checks/logs", token: token, json: Self.entries).code
                    == "DEVICE_NOT_REGISTERED"
            )
            _ = try await api.register(token: token)
            let reply = try await api.send(.post, "/apps/checks/logs", token: token, json: Self.entries)
            #expect(reply.status == .accepted)
            #expect(try reply.json["accepted"] as? Int == 2)
            let logs = try await api.admin(.get, "/admin/apps/checks/logs?limit=10").decode(
                [Components.Schemas.StoredLogEntry].self
            )
            // Control characters are kept written out, tab and newline aside: an admin's
            // terminal never gets a device's escape codes.
            #expect(
                logs.map(\.message) == [
                    #"sync\u{0}failed\u{1B}]0;pwned\u{7}\u{1B}[2J\u{9B}1A\u{202E}"# + "\tat line 2\nnext",
                    "opened checks",
                ]
            )
            // Offsets and fractions are read; dates are written in UTC to the second.
            #expect(logs.first?.time == Date(timeIntervalSince1970: 1_795_320_060))
            #expect(logs.allSatisfy { $0.userID == "alice" && $0.deviceID == "device-1" })

            let tooMany = """
                {"entries": [\(Array(repeating: #"{"time": "2026-11-22T06:00:00Z", "level": "info", "message": "x"}"#, count: 3).joined(separator: ","))]}
                """
            let refused = try await api.send(.post, "/apps/checks/logs", token: token, json: tooMany)
            #expect(refused.status == .conflict)
            #expect(refused.code == "TOO_MANY_ENTRIES")
            #expect(
                try await api.admin(.get, "/admin/apps/checks/logs").decode([Components.Schemas.StoredLogEntry].self)
                    .count == 2
            )
            #expect(try await api.admin(.get, "/admin/apps/checks/logs?limit=0").status == .badRequest)
        }
    }

    @Test(
        "a device keeps at most its newest 10,000 entries, for 30 days; another device's entries are its own",
        arguments: Backend.available
    )
    func quota(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { api in
            try await api.admin(
                .patch,
                "/admin/apps/checks",
                json: #"{"settings": {"logSettings": {"logEnabled": true, "maxEntriesPerUpload": 1000}}}"#
            ).expect(.ok)
            let token = try await api.signIn("alice")
            _ = try await api.register(token: token)
            let bobToken = try await api.signIn("bob", device: "device-2")
            _ = try await api.register(token: bobToken, device: "device-2")
            func upload(_ count: Int, tag: String, token: String) async throws -> ServerReply {
                let entries = (0..<count).map {
                    #"{"time": "2026-11-22T06:00:00Z", "level": "info", "message": "\#(tag)-\#($0)"}"#
                }
                return try await api.send(
                    .post,
                    "/apps/checks/logs",
                    token: token,
                    json: #"{"entries": [\#(entries.joined(separator: ","))]}"#
                )
            }
            try await upload(1, tag: "bob", token: bobToken).expect(.accepted)
            for round in 1...11 { try await upload(1000, tag: "round\(round)", token: token).expect(.accepted) }
            let storage = fixture.server.storage
            let kept = try await storage.logs(appID: "checks", limit: 100_000)
            let alice = kept.filter { $0.username == "alice" }
            #expect(alice.count == 10_000)
            // The newest are kept; the first round went.
            #expect(alice.contains { $0.message == "round11-999" })
            #expect(!alice.contains { $0.message.hasPrefix("round1-") })
            // Another device's entries are not pruned with hers.
            #expect(kept.filter { $0.username == "bob" }.count == 1)

            fixture.clock.advance(by: .seconds(31 * 24 * 60 * 60))
            try await upload(1, tag: "late", token: try await api.signIn("alice")).expect(.accepted)
            #expect(
                try await storage.logs(appID: "checks", limit: 100_000).filter { $0.username == "alice" }.count == 1
            )
        }
    }

    @Test("more than 30 uploads from one device in 15 minutes are refused with 429")
    func uploadRate() async throws {
        try await ServerFixture().runSeeded { api in
            try await api.admin(
                .patch,
                "/admin/apps/checks",
                json: #"{"settings": {"logSettings": {"logEnabled": true}}}"#
            )
            .expect(.ok)
            let token = try await api.signIn("alice")
            _ = try await api.register(token: token)
            let one = #"{"entries": [{"time": "2026-11-22T06:00:00Z", "level": "info", "message": "x"}]}"#
            for _ in 1...30 {
                try await api.send(.post, "/apps/checks/logs", token: token, json: one).expect(.accepted)
            }
            let refused = try await api.send(.post, "/apps/checks/logs", token: token, json: one)
            #expect(refused.status == .tooManyRequests)
            #expect(refused.code == "LOG_UPLOAD_THROTTLED")
            #expect(refused.headers[.retryAfter] != nil)
        }
    }

    @Test("one user's devices together: 60 uploads in 15 minutes however many device IDs, then 429")
    func uploadRatePerUser() async throws {
        try await ServerFixture().runSeeded { api in
            try await api.admin(
                .patch,
                "/admin/apps/checks",
                json: #"{"settings": {"logSettings": {"logEnabled": true}}}"#
            )
            .expect(.ok)
            let one = #"{"entries": [{"time": "2026-11-22T06:00:00Z", "level": "info", "message": "x"}]}"#
            var accepted = 0
            for device in 1...7 {
                let token = try await api.signIn("alice", device: "device-\(device)")
                _ = try await api.register(token: token, device: "device-\(device)")
                for _ in 1...10 {
                    let reply = try await api.send(.post, "/apps/checks/logs", token: token, json: one)
                    if reply.status == .accepted {
                        accepted += 1
                    } else {
                        #expect(reply.code == "LOG_UPLOAD_THROTTLED")
                    }
                }
            }
            #expect(accepted == 60)
            // Bob's uploads are his own.
            let bob = try await api.signIn("bob", device: "device-b")
            _ = try await api.register(token: bob, device: "device-b")
            try await api.send(.post, "/apps/checks/logs", token: bob, json: one).expect(.accepted)
        }
    }

    @Test(
        "kept per device, per user over all their devices, and per app: the newest of each",
        arguments: Backend.available
    )
    func retentionPerUserAndApp(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { _ in
            let storage = fixture.server.storage
            let time = Date(timeIntervalSince1970: 1_795_320_000)
            let retention = LogRetention(
                entriesPerDevice: 3,
                entriesPerUser: 5,
                entriesPerApp: 8,
                receivedAfter: time.addingTimeInterval(-60)
            )
            var sent = 0
            func upload(_ user: String, _ device: String, _ count: Int) async throws {
                let records = (0..<count).map { _ in
                    sent += 1
                    return LogRecord(
                        appID: "checks",
                        username: user,
                        deviceID: device,
                        time: time,
                        level: "info",
                        message: "entry \(sent)",
                        source: nil,
                        receivedAt: time
                    )
                }
                try await storage.insertLogs(records, retention: retention)
            }
            for device in 1...4 { try await upload("alice", "a\(device)", 3) }
            var kept = try await storage.logs(appID: "checks", limit: 1_000)
            #expect(kept.count == 5, "alice keeps her newest 5 over four devices")
            #expect(kept.map(\.message).contains("entry 12") && !kept.map(\.message).contains("entry 7"))
            for device in 1...3 { try await upload("bob", "b\(device)", 3) }
            kept = try await storage.logs(appID: "checks", limit: 1_000)
            #expect(kept.count == 8, "the app keeps its newest 8")
            #expect(kept.filter { $0.username == "bob" }.count == 5)
        }
    }
}
