import Crypto
import Foundation
import GangwayFlows
import GangwayScreens
import GangwayServerTesting
import GangwayServices
import GangwayStore
import GangwayTesting
import HTTPTypes
import Synchronization
import Testing

/// The app's own backends from the device: ``DestinationClient`` through the real server
/// to a backend that is not Gangway's code (``TestDestinationBackend``, which checks each
/// person's token with PyJWT against the server's published keys).
@Suite(
    "Stories: the app calls its company's backend as the signed-in person",
    .enabled(if: TestDestinationBackend.isInstalled, "needs PyJWT in .build-oidc/venv (see .ci/run)")
)
struct DestinationClientTests {
    /// Runs `body` with the app's destination `orders` at a backend of its own.
    static func withBackend(_ body: (RunningTestServer) async throws -> Void) async throws {
        try await TestServer.run(seed: .checks) { server in
            let issuer = server.url.absoluteString + "/apps/checks"
            try await TestDestinationBackend.using(jwks: issuer + "/destination-keys", issuer: issuer) { backend in
                let added = try await server.admin(
                    .put,
                    "/admin/apps/checks/destinations/orders",
                    json: #"{"url": "\#(backend.url)"}"#
                )
                #expect(added.status == .created)
                try await body(server)
            }
        }
    }

    static func who(_ answer: DestinationResponse) throws -> String? {
        (try JSONSerialization.jsonObject(with: answer.body) as? [String: Any])?["sub"] as? String
    }

    /// The requests the server forwarded to `orders`, by status.
    static func forwarded(_ server: RunningTestServer) async throws -> [[String: Any]] {
        let listed = try await server.admin(.get, "/admin/apps/checks/destinations")
        let destinations = try JSONSerialization.jsonObject(with: listed.body) as? [[String: Any]]
        return destinations?.first?["requests"] as? [[String: Any]] ?? []
    }

    /// Alice onboarded on a device of her own, with one sign-in again left in the script
    /// (for the session the server will end), and her client.
    static func alice(
        _ server: RunningTestServer
    ) async throws -> (device: ServicesDevice, app: ServicesApp, client: DestinationClient) {
        let device = try ServicesDevice(server: server)
        let app = try device.launch(
            .byEmail,
            .signIn("alice"),
            .create(ServicesDevice.alicePasscode),
            .signIn("alice")
        )
        try await app.manager.open()
        let client = DestinationClient(services: device.services, context: try #require(await app.manager.flowContext))
        return (device, app, client)
    }

    /// The forwarded requests' counts, once they add up to `total` (the server writes them
    /// about a second after the requests), or as they are after ten seconds.
    static func forwarded(_ server: RunningTestServer, reaching total: Int) async throws -> [[String: Any]] {
        var counts = try await forwarded(server)
        for _ in 0..<100 where counts.reduce(0, { $0 + ($1["count"] as? Int ?? 0) }) < total {
            try await Task.sleep(for: .milliseconds(100))
            counts = try await forwarded(server)
        }
        return counts
    }

    @Test(
        "alice's requests arrive as alice; her session ended on the server, she signs in again and the request goes through once"
    )
    func asThePersonThroughASignInAgain() async throws {
        try await Self.withBackend { server in
            // The last answer is for the sign-in the ended session asks for.
            let (device, app, orders) = try await Self.alice(server)

            let first = try await orders.send(
                DestinationRequest(destination: "orders", path: "/whoami", query: "day=1")
            )
            #expect(first.status == 200)
            #expect(try Self.who(first) == "alice")
            #expect(first.headers["x-gangway-destination"] == "orders")

            let posted = try await orders.send(
                DestinationRequest("POST", destination: "orders", path: "/echo", body: Data(repeating: 7, count: 4096))
            )
            #expect((try JSONSerialization.jsonObject(with: posted.body) as? [String: Any])?["length"] as? Int == 4096)

            // The server ends her sessions: the next request meets a 401 of the server's,
            // she signs in again, and the request is sent again, once.
            let revoked = try await server.admin(.delete, "/admin/users/alice/sessions")
            #expect(revoked.status == .noContent)
            let again = try await orders.send(DestinationRequest(destination: "orders", path: "/whoami"))
            #expect(try Self.who(again) == "alice")
            try app.presenter.verifyFinished()
            let counts = try await Self.forwarded(server, reaching: 3)
            #expect(counts.count == 1 && counts.first?["status"] as? Int == 200 && counts.first?["count"] as? Int == 3)

            // The backend's own refusal is its answer, not the session's end.
            let unauthorized = try await orders.send(DestinationRequest(destination: "orders", path: "/raw-token"))
            #expect(unauthorized.status == 200)
            #expect(!device.logsHoldASecret)
        }
    }

    @Test("bob's device reaches the backend as bob; the server's refusals are typed errors the app can show")
    func refusals() async throws {
        try await Self.withBackend { server in
            let device = try ServicesDevice(server: server)
            let app = try device.launch(
                .welcome(.activate(.email("bob@airline.example"))),
                .signIn("bob"),
                .create(ServicesDevice.alicePasscode)
            )
            try await app.manager.open()
            let context = try #require(await app.manager.flowContext)
            let client = DestinationClient(services: device.services, context: context)
            #expect(
                try Self.who(try await client.send(DestinationRequest(destination: "orders", path: "/whoami"))) == "bob"
            )

            await #expect(throws: ServiceError.notFound) {
                try await client.send(DestinationRequest(destination: "payroll", path: "/x"))
            }
            await #expect(throws: ServiceError.refused) {
                try await client.send(DestinationRequest(destination: "orders", path: "/../admin"))
            }
            try await server.admin(
                .put,
                "/admin/apps/checks/destinations/gone",
                json: #"{"url": "http://127.0.0.1:1"}"#
            )
            await #expect(throws: ServiceError.serverFailure) {
                try await client.send(DestinationRequest(destination: "gone", path: "/x"))
            }
            try await server.setDevice(of: "bob", to: "locked")
            await #expect(throws: ServiceError.registrationLocked) {
                try await client.send(DestinationRequest(destination: "orders", path: "/whoami"))
            }
            try await server.setDevice(of: "bob", to: "active")
            try await app.manager.close()

            // Offline: a typed error the app can show, with the server's address.
            try device.goOffline()
            let offline = try device.launch(.unlock(ServicesDevice.alicePasscode))
            try await offline.manager.open()
            let offlineContext = try #require(await offline.manager.flowContext)
            await #expect(throws: ServiceError.unreachable(server.url)) {
                try await DestinationClient(services: device.services, context: offlineContext)
                    .send(DestinationRequest(destination: "orders", path: "/whoami"))
            }
            try await offline.manager.close()
        }
    }

    @Test("uploads and downloads from the app's size on report their progress; smaller ones travel without a word")
    func progress() async throws {
        try await Self.withBackend { server in
            let device = try ServicesDevice(server: server)
            let app = try device.launch(.byEmail, .signIn("alice"), .create(ServicesDevice.alicePasscode))
            try await app.manager.open()
            var client = DestinationClient(
                services: device.services,
                context: try #require(await app.manager.flowContext)
            )
            client.progressThreshold = 256 << 10
            let seen = Mutex<[TransferProgress]>([])
            let record: @Sendable (TransferProgress) -> Void = { event in seen.withLock { $0.append(event) } }

            let size = 1 << 20
            let upload = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 * 7) })
            let echoed = try await client.send(
                DestinationRequest("POST", destination: "orders", path: "/echo", body: upload),
                progress: record
            )
            let echo = try #require(try JSONSerialization.jsonObject(with: echoed.body) as? [String: Any])
            #expect(echo["length"] as? Int == size)
            #expect(echo["sha256"] as? String == SHA256.hash(data: upload).map { String(format: "%02x", $0) }.joined())
            let sent = seen.withLock { events in
                defer { events = [] }
                return events
            }
            #expect(sent.count >= 2)
            #expect(sent.allSatisfy { $0.direction == .upload && $0.total == size })
            #expect(sent.map(\.bytes) == sent.map(\.bytes).sorted())
            #expect(sent.last?.bytes == size)

            let downloaded = try await client.send(
                DestinationRequest(destination: "orders", path: "/download", query: "bytes=\(2 * size)"),
                progress: record
            )
            #expect(downloaded.body.count == 2 * size)
            let received = seen.withLock { events in
                defer { events = [] }
                return events
            }
            #expect(received.count >= 2)
            #expect(received.allSatisfy { $0.direction == .download && $0.total == 2 * size })
            #expect(received.last?.bytes == 2 * size)

            // Below the app's size: no report, either way.
            _ = try await client.send(
                DestinationRequest("POST", destination: "orders", path: "/echo", body: Data(count: 1000)),
                progress: record
            )
            _ = try await client.send(
                DestinationRequest(destination: "orders", path: "/download", query: "bytes=100000"),
                progress: record
            )
            #expect(seen.withLock { $0 }.isEmpty)

            // An answer over the client's limit is not taken.
            client.maximumBodySize = size
            await #expect(throws: ServiceError.invalidResponse) {
                try await client.send(
                    DestinationRequest(destination: "orders", path: "/download", query: "bytes=\(2 * size)")
                )
            }
            try await app.manager.close()
        }
    }

    @Test("a user switch gives bob a client of his own; alice's, closed with her session, sends nothing")
    func userSwitch() async throws {
        try await Self.withBackend { server in
            let device = try ServicesDevice(server: server, shared: true)
            let app = try device.launch(.byEmail, .signIn("alice"), .create(ServicesDevice.alicePasscode))
            try await app.manager.open()
            let alices = DestinationClient(
                services: device.services,
                context: try #require(await app.manager.flowContext)
            )
            #expect(
                try Self.who(try await alices.send(DestinationRequest(destination: "orders", path: "/whoami")))
                    == "alice"
            )

            app.presenter.append(.welcome(.signIn), .signIn("bob"), .create(ServicesDevice.bobPasscode))
            _ = try await app.manager.addUser()
            let bobs = DestinationClient(
                services: device.services,
                context: try #require(await app.manager.flowContext)
            )
            #expect(
                try Self.who(try await bobs.send(DestinationRequest(destination: "orders", path: "/whoami"))) == "bob"
            )
            // Alice's client went with her session: it refuses, and never as bob.
            await #expect(throws: SecureStoreError.closed) {
                try await alices.send(DestinationRequest(destination: "orders", path: "/whoami"))
            }

            // Closed, bob's refuses too.
            try await app.manager.close()
            await #expect(throws: SecureStoreError.closed) {
                try await bobs.send(DestinationRequest(destination: "orders", path: "/whoami"))
            }
            _ = try await Self.forwarded(server, reaching: 2)
            // Written about a second after the requests: a third would be there by now.
            try await Task.sleep(for: .milliseconds(1500))
            let counts = try await Self.forwarded(server)
            #expect(counts.reduce(0, { $0 + ($1["count"] as? Int ?? 0) }) == 2, "only the two let through: \(counts)")
            try app.presenter.verifyFinished()
        }
    }

    @Test("two requests that meet the ended session together ask the person to sign in once, and both go through")
    func oneSignInForTwo() async throws {
        try await Self.withBackend { server in
            // One sign-in again in the script: a second would be a screen it cannot answer.
            // The device is kept to the end: its disk goes with it.
            let (device, app, client) = try await Self.alice(server)
            let revoked = try await server.admin(.delete, "/admin/users/alice/sessions")
            #expect(revoked.status == .noContent)
            async let first = client.send(DestinationRequest(destination: "orders", path: "/whoami", query: "n=1"))
            async let second = client.send(DestinationRequest(destination: "orders", path: "/whoami", query: "n=2"))
            let answers = try await [first, second]
            #expect(try answers.map { try Self.who($0) } == ["alice", "alice"])
            try app.presenter.verifyFinished()
            #expect(app.presenter.presented(SignInScreen.self).count == 2, "the onboarding's, and one again")
            #expect(!device.logsHoldASecret)
            try await app.manager.close()
        }
    }
}
