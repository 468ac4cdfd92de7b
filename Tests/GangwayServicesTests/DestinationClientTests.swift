import Foundation
import GangwayFlows
import GangwayScreens
import GangwayServerTesting
import GangwayServices
import GangwayTesting
import HTTPTypes
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

    @Test(
        "alice's requests arrive as alice; her session ended on the server, she signs in again and the request goes through once"
    )
    func asThePersonThroughASignInAgain() async throws {
        try await Self.withBackend { server in
            let device = try ServicesDevice(server: server)
            // The last answer is for the sign-in the ended session asks for.
            let app = try device.launch(
                .byEmail,
                .signIn("alice"),
                .create(ServicesDevice.alicePasscode),
                .signIn("alice")
            )
            try await app.manager.open()
            let context = try #require(await app.manager.flowContext)
            let orders = DestinationClient(services: device.services, context: context)

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
            var counts = try await Self.forwarded(server)
            // The server writes its counts about a second after the requests.
            for _ in 0..<100 where counts.reduce(0, { $0 + ($1["count"] as? Int ?? 0) }) < 3 {
                try await Task.sleep(for: .milliseconds(100))
                counts = try await Self.forwarded(server)
            }
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
}
