import AsyncHTTPClient
import Foundation
import GangwayProtocol
import GangwayServer
import GangwayServerStorage
import GangwayServerTesting
import GangwayTesting
import HTTPTypes
import NIOCore
import NIOHTTP1
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// An app's destinations: its company backends, reached by devices through the server as
/// the signed-in person. The backend is not Gangway's code: a Python app that checks each
/// forwarded token with PyJWT against the server's published keys
/// (``TestDestinationBackend``).
@Suite(
    "Destinations: a device reaches its company's backend through the server, as the signed-in person",
    .servingTurn,
    .tags(.postgres),
    .skipsTags
)
struct DestinationTests {
    static let path = "/admin/apps/checks/destinations"

    @Test(
        "an admin adds, changes, lists and removes destinations; every bad one is refused, nothing kept",
        arguments: Backend.available
    )
    func admin(backend: Backend) async throws {
        let fixture = try await ServerFixture(over: .loopback, backend: backend)
        try await fixture.runSeeded { api in
            let added = try await api.admin(
                .put,
                "\(Self.path)/orders",
                json: #"{"url": "https://orders.example.com/api"}"#
            )
            try added.expect(.created)
            let destination = try added.decode(Components.Schemas.Destination.self)
            #expect(destination.authentication == .identity && destination.requests.isEmpty)
            let changed = try await api.admin(
                .put,
                "\(Self.path)/orders",
                json: #"{"url": "https://orders.example.com/v2"}"#
            )
            try changed.expect(.ok)
            #expect(try changed.decode(Components.Schemas.Destination.self).createdAt == destination.createdAt)

            let keyed = try await api.admin(
                .put,
                "\(Self.path)/stock",
                json:
                    #"{"url": "https://stock.example.com", "authentication": "credential", "credentialHeader": "X-API-Key", "credential": "stock-secret-1"}"#
            )
            try keyed.expect(.created)
            #expect(!keyed.text.contains("stock-secret-1"), "the credential is never shown")
            // Left out, the stored credential is kept for another path of the same origin
            // (the scheme's port said or not, the host in any case)...
            try await api.admin(
                .put,
                "\(Self.path)/stock",
                json: #"{"url": "https://Stock.example.com:443/2", "authentication": "credential"}"#
            ).expect(.ok)
            let kept = try await fixture.server.storage.destination(appID: "checks", name: "stock")?.sealedCredential
            #expect(kept != nil)
            // ...but never follows the URL to another origin, nor goes in another header.
            for moved in [
                #"{"url": "https://attacker.example.net/2", "authentication": "credential"}"#,
                #"{"url": "https://stock.example.com:8443/2", "authentication": "credential"}"#,
                #"{"url": "https://stock.example.com.attacker.example/2", "authentication": "credential"}"#,
                #"{"url": "https://stock.example.com/2", "authentication": "credential", "credentialHeader": "X-Other"}"#,
            ] {
                let refused = try await api.admin(.put, "\(Self.path)/stock", json: moved)
                #expect(refused.status == .badRequest && refused.text.contains("send credential again"), "\(moved)")
            }
            let unchanged = try await fixture.server.storage.destination(appID: "checks", name: "stock")
            #expect(unchanged?.url == "https://Stock.example.com:443/2" && unchanged?.sealedCredential == kept)

            for bad in [
                #"{"url": "http://orders.example.com"}"#, #"{"url": "https://orders.example.com?x=1"}"#,
                #"{"url": "https://user@orders.example.com"}"#, #"{"url": "ftp://orders.example.com"}"#,
                #"{"url": "https://orders.example.com", "credential": "x"}"#,
                #"{"url": "https://x.example.com", "authentication": "credential", "credential": "x"}"#,
                #"{"url": "https://x.example.com", "authentication": "credential", "credentialHeader": "Host", "credential": "x"}"#,
                #"{"url": "https://x.example.com", "authentication": "credential", "credentialHeader": "X-Key"}"#,
                #"{"url": "https://x.example.com", "authentication": "credential", "credentialHeader": "X-Key", "credential": "a\u0001"}"#,
            ] {
                let refused = try await api.admin(.put, "\(Self.path)/bad", json: bad)
                #expect(refused.status == .badRequest, "\(bad)")
            }
            // Headers the proxy sets or drops would carry the credential to no one, or in
            // place of what the proxy says (the device's address).
            for header in ["X-Forwarded-For", "forwarded", "X-Request-ID", "X-Gangway-Destination", "Expect", "Cookie"]
            {
                let refused = try await api.admin(
                    .put,
                    "\(Self.path)/bad",
                    json:
                        #"{"url": "https://x.example.com", "authentication": "credential", "credentialHeader": "\#(header)", "credential": "x"}"#
                )
                #expect(
                    refused.status == .badRequest && refused.text.contains("cannot carry a credential"),
                    "\(header)"
                )
            }
            #expect(
                try await api.admin(.put, "\(Self.path)/-bad", json: #"{"url": "https://x.example.com"}"#).status
                    == .badRequest
            )
            #expect(
                try await api.admin(
                    .put,
                    "/admin/apps/nothing/destinations/x",
                    json: #"{"url": "https://x.example.com"}"#
                ).status == .notFound
            )
            #expect(
                try await api.send(.put, "\(Self.path)/x", json: #"{"url": "https://x.example.com"}"#).status
                    == .unauthorized
            )

            let listed = try await api.admin(.get, Self.path).decode([Components.Schemas.Destination].self)
            #expect(listed.map(\.name) == ["orders", "stock"])
            #expect(listed.last?.credentialHeader == "X-API-Key")
            try await api.admin(.delete, "\(Self.path)/orders").expect(.noContent)
            let gone = try await api.admin(.delete, "\(Self.path)/orders")
            #expect(gone.status == .notFound && gone.code == "DESTINATION_NOT_FOUND")
            let actions = try await OperatorsTests.audit(api).map(\.action)
            #expect(actions.prefix(4) == ["removeDestination", "putDestination", "putDestination", "putDestination"])
        }
    }

    /// The app's destinations once `done` holds of them (the server writes its counts
    /// about a second after the requests), or as they are after ten seconds.
    static func listed(
        _ api: API,
        until done: ([Components.Schemas.Destination]) -> Bool
    ) async throws -> [Components.Schemas.Destination] {
        var listed: [Components.Schemas.Destination] = []
        for _ in 0..<100 {
            listed = try await api.admin(.get, Self.path).decode([Components.Schemas.Destination].self)
            if done(listed) { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        return listed
    }

    @Test("with --public-destinations-only, a destination at a non-public address is refused when put and when used")
    func publicDestinationsOnly() async throws {
        let fixture = try await ServerFixture(over: .loopback) { $0.publicDestinationsOnly = true }
        try await fixture.runSeeded { api in
            for inner in [
                "http://127.0.0.1:8080", "https://10.1.2.3/api", "https://169.254.169.254/latest",
                "https://localhost/api", "https://100.64.0.1", "https://0.0.0.0", "https://192.168.1.9:8443/x",
            ] {
                let refused = try await api.admin(.put, "\(Self.path)/inner", json: #"{"url": "\#(inner)"}"#)
                #expect(refused.status == .badRequest, "\(inner): \(refused.status)")
                #expect(refused.text.contains("which is not a public address"), "\(inner): \(refused.text)")
            }
            let unresolvable = try await api.admin(
                .put,
                "\(Self.path)/inner",
                json: #"{"url": "https://no-such-host.invalid/api"}"#
            )
            #expect(unresolvable.status == .badRequest && unresolvable.text.contains("does not resolve"))
            #expect(try await fixture.server.storage.destination(appID: "checks", name: "inner") == nil)
            // A public address is taken (nothing is sent to it here).
            try await api.admin(.put, "\(Self.path)/outer", json: #"{"url": "https://93.184.215.14/api"}"#)
                .expect(.created)

            // A destination that leads inside by the time it is used (put before the
            // option, or its name resolving anew) is refused at each request.
            _ = try await fixture.server.storage.putDestination(
                DestinationRecord(
                    appID: "checks",
                    name: "inner",
                    url: "http://127.0.0.1:9",
                    authentication: .identity,
                    createdAt: fixture.clock.now()
                )
            )
            let alice = try await Self.device(api, "alice")
            let refused = try await api.send(.get, "/apps/checks/destinations/inner/x", token: alice.token)
            #expect(refused.status == .badGateway && refused.code == "DESTINATION_UNAVAILABLE")
            #expect(refused.text.contains("not a public one"), "\(refused.text)")
            #expect(fixture.logs.text.contains("destination refused: its host does not reach a public address"))
        }
    }

    /// A registered device of `user`'s: its session token and registration ID.
    static func device(_ api: API, _ user: String) async throws -> (token: String, registration: String) {
        let token = try await api.signIn(user, device: "\(user)-tablet")
        let registration = try await api.register(token: token, device: "\(user)-tablet")
        return (token, registration.registrationID)
    }

    /// The app's destination `orders` goes to `backend` with the person's identity.
    static func setUp(_ api: API, _ backend: TestDestinationBackend) async throws {
        try await api.admin(.put, "\(Self.path)/orders", json: #"{"url": "\#(backend.url)"}"#).expect(.created)
    }

    static func withBackend(
        backend store: Backend = .sqlite,
        _ body: (ServerFixture, API, TestDestinationBackend) async throws -> Void
    ) async throws {
        let fixture = try await ServerFixture(over: .loopback, backend: store)
        try await fixture.runSeeded { api in
            let issuer = api.running.url.absoluteString + "/apps/checks"
            try await TestDestinationBackend.using(jwks: issuer + "/destination-keys", issuer: issuer) { backend in
                try await setUp(api, backend)
                try await body(fixture, api, backend)
            }
        }
    }

    @Test(
        "alice's request reaches the backend as alice, bob's as bob; the device's own credentials never do",
        .enabled(if: TestDestinationBackend.isInstalled, "needs PyJWT in .build-oidc/venv (see .ci/run)"),
        arguments: Backend.available
    )
    func asThePerson(backend: Backend) async throws {
        try await Self.withBackend(backend: backend) { fixture, api, _ in
            let alice = try await Self.device(api, "alice")
            let reply = try await api.send(
                .get,
                "/apps/checks/destinations/orders/whoami?week=48&x=%C3%A9",
                token: alice.token,
                headers: [
                    .cookie: "device-cookie=1", HTTPField.Name("Keep-Alive")!: "timeout=5",
                    HTTPField.Name("X-Forwarded-For")!: "1.2.3.4", HTTPField.Name("X-Real-IP")!: "1.2.3.4",
                    HTTPField.Name("Forwarded")!: "for=1.2.3.4", HTTPField.Name("X-Gangway-Identity")!: "forged",
                ]
            )
            try reply.expect(.ok)
            let seen = try reply.json
            #expect(seen["forwardedFor"] as? String == "127.0.0.1", "the server's own, never the device's")
            let names = seen["headers"] as? [String] ?? []
            #expect(
                !names.contains("x-real-ip") && !names.contains("forwarded") && !names.contains("x-gangway-identity")
            )
            #expect(seen["sub"] as? String == "alice")
            #expect(seen["app"] as? String == "checks")
            #expect(seen["registration"] as? String == alice.registration)
            #expect(seen["name"] as? String == "Alice")
            #expect(seen["path"] as? String == "/whoami")
            #expect(seen["query"] as? String == "week=48&x=%C3%A9")
            #expect(seen["cookie"] is NSNull, "the device's cookie stays with the server")
            let headers = seen["headers"] as? [String] ?? []
            #expect(!headers.contains("keep-alive") && headers.contains("x-request-id"))
            #expect(seen["token"] as? String != alice.token, "the backend gets the person, not the device's token")
            #expect(reply.headers[.setCookie] == nil, "the backend's cookies stay with the server")
            // Served from the server's origin, the answer is never guessed at nor run as its page.
            #expect(reply.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
            #expect(reply.headers[.contentSecurityPolicy]?.hasPrefix("sandbox;") == true)

            let bob = try await Self.device(api, "bob")
            let asBob = try await api.send(.get, "/apps/checks/destinations/orders/whoami", token: bob.token)
            #expect(try asBob.json["sub"] as? String == "bob")

            let posted = try await api.send(
                .post,
                "/apps/checks/destinations/orders/echo",
                token: alice.token,
                json: String(repeating: "o", count: 200_000),
                headers: [.contentType: "text/plain"]
            )
            try posted.expect(.ok)
            #expect(try posted.json["length"] as? Int == 200_000, "a body of any type streams through")

            let listed = try await Self.listed(api) { $0.first?.requests.map(\.count).reduce(0, +) == 3 }
            #expect(listed.first?.requests.map { [$0.status, Int32($0.count)] } == [[200, 3]])
            #expect(!fixture.logs.text.contains(alice.token))
        }
    }

    @Test(
        "the backend refuses a token that expired, was tampered with, or is for another backend",
        .enabled(if: TestDestinationBackend.isInstalled, "needs PyJWT in .build-oidc/venv (see .ci/run)")
    )
    func backendChecks() async throws {
        try await Self.withBackend { fixture, api, backend in
            let alice = try await Self.device(api, "alice")
            func token() async throws -> String {
                let seen = try await api.send(.get, "/apps/checks/destinations/orders/raw-token", token: alice.token)
                return try #require(try seen.json["token"] as? String, "\(seen.status) \(seen.text)")
            }
            func check(_ token: String) async throws -> ServerReply {
                try await api.send(.post, "/apps/checks/destinations/orders/check", token: alice.token, json: token)
            }
            let good = try await token()
            #expect(try await check(good).json["sub"] as? String == "alice", "what the backend takes, to compare")
            var parts = good.split(separator: ".").map(String.init)
            parts[1] = Data(#"{"sub":"admin"}"#.utf8).base64URLEncoded
            #expect(try await check(parts.joined(separator: ".")).json["error"] as? String == "InvalidSignatureError")

            // Signed six minutes ago, by the server's clock: past its five minutes.
            fixture.clock.advance(by: .seconds(-360))
            let old = try await token()
            fixture.clock.advance(by: .seconds(360))
            #expect(try await check(old).json["error"] as? String == "ExpiredSignatureError")

            // A token for another destination's URL is not this backend's.
            try await api.admin(.put, "\(Self.path)/elsewhere", json: #"{"url": "\#(backend.url)/other"}"#).expect(
                .created
            )
            let seen = try await api.send(.get, "/apps/checks/destinations/elsewhere/whoami", token: alice.token)
            #expect(seen.status == .unauthorized, "the backend refuses it: \(seen.text)")
            #expect(try seen.json["error"] as? String == "InvalidAudienceError")
        }
    }

    @Test(
        "nothing gets through for a locked or wiped registration, a blocked user, no session, an unknown destination, or a path out of it",
        .enabled(if: TestDestinationBackend.isInstalled, "needs PyJWT in .build-oidc/venv (see .ci/run)")
    )
    func refusals() async throws {
        try await Self.withBackend { fixture, api, backend in
            let alice = try await Self.device(api, "alice")
            let whoami = "/apps/checks/destinations/orders/whoami"
            #expect(try await api.send(.get, whoami).status == .unauthorized)
            #expect(try await api.send(.get, whoami, token: "not-a-session").status == .unauthorized)
            let unknown = try await api.send(.get, "/apps/checks/destinations/nothing/x", token: alice.token)
            #expect(unknown.status == .notFound && unknown.code == "DESTINATION_NOT_FOUND")
            for escape in [
                "/../x", "/%2e%2e/x", "/a/%2F/b", "/./x", "/a%5Cb", "/a/..;/b", "/..;x/b", "/%2e%2e;/b", "/.%3Bx/b",
                "/a/.;/b",
                // Escapes that decode to no UTF-8 text: a byte alone, an overlong form, a
                // lone continuation byte, a sequence cut short, a surrogate, five bytes, and
                // escapes that are not escapes.
                "/%ff?q=1", "/a/%c0%af", "/%c0%ae%c0%ae/x", "/%80", "/%2e%2e%ff", "/x/%e2%82", "/%ed%a0%80",
                "/%f8%88%80%80%80", "/%zz", "/a%", "/a%4",
            ] {
                let refused = try await api.send(.get, "/apps/checks/destinations/orders\(escape)", token: alice.token)
                #expect(refused.status == .badRequest, "\(escape)")
            }
            // Unregistered: a session without a device the admin can see.
            let unregistered = try await api.signIn("bob", device: "bob-phone")
            #expect(try await api.send(.get, whoami, token: unregistered).code == "DEVICE_NOT_REGISTERED")

            let device = "\(Self.path.replacingOccurrences(of: "destinations", with: "devices"))/\(alice.registration)"
            try await api.admin(.patch, device, json: #"{"status": "locked"}"#).expect(.ok)
            #expect(try await api.send(.get, whoami, token: alice.token).code == "TRAFFIC_REG_LOCKED")
            try await api.admin(.patch, device, json: #"{"status": "active"}"#).expect(.ok)
            // The lock ended the session there: unlocked, the device signs in anew.
            #expect(try await api.send(.get, whoami, token: alice.token).status == .unauthorized)
            let again = try await api.signIn("alice", device: "alice-tablet")
            #expect(try await api.send(.get, whoami, token: again).status == .ok)
            try await api.admin(.patch, "/admin/users/alice", json: #"{"blocked": true}"#).expect(.ok)
            #expect(try await api.send(.get, whoami, token: again).status == .unauthorized)

            let counted = try await Self.listed(api) { !($0.first?.requests.isEmpty ?? true) }
            #expect(counted.first?.requests.map(\.count) == [1], "only the one let through reached the backend")
            _ = backend
        }
    }

    @Test(
        "a redirect is not followed; an unreachable backend is a 502 counted as status 0; a fixed credential replaces the person",
        .enabled(if: TestDestinationBackend.isInstalled, "needs PyJWT in .build-oidc/venv (see .ci/run)"),
        .tags(.slow),
        .skipsTags
    )
    func backendsAndCredentials() async throws {
        try await Self.withBackend { _, api, backend in
            let alice = try await Self.device(api, "alice")
            let redirect = try await api.send(.get, "/apps/checks/destinations/orders/redirect", token: alice.token)
            #expect(redirect.status == .found, "passed back, not followed")

            try await api.admin(
                .put,
                "\(Self.path)/stock",
                json:
                    #"{"url": "\#(backend.url)", "authentication": "credential", "credentialHeader": "X-API-Key", "credential": "stock-secret-1"}"#
            ).expect(.created)
            let fixed = try await api.send(.get, "/apps/checks/destinations/stock/fixed", token: alice.token)
            #expect(try fixed.json["apiKey"] as? String == "stock-secret-1")
            #expect(try fixed.json["authorization"] is NSNull, "no identity, and not the device's token")

            try await api.admin(.put, "\(Self.path)/gone", json: #"{"url": "http://127.0.0.1:1"}"#).expect(.created)
            let unreachable = try await api.send(.get, "/apps/checks/destinations/gone/x", token: alice.token)
            #expect(unreachable.status == .badGateway && unreachable.code == "DESTINATION_UNAVAILABLE")
            let listed = try await Self.listed(api) { $0.contains { $0.name == "gone" && !$0.requests.isEmpty } }
            #expect(listed.first { $0.name == "gone" }?.requests.map(\.status) == [0])
        }
    }

    /// Sends `size` bytes to the backend's `path` (`/echo` unless said) over loopback in
    /// 64 KiB chunks, as `Transfer-Encoding: chunked` or with its length declared.
    static func upload(
        _ api: API,
        token: String,
        size: Int,
        path: String = "/echo",
        declared: Bool = false
    ) async throws -> (UInt, Data) {
        var request = HTTPClientRequest(url: api.running.url.absoluteString + "/apps/checks/destinations/orders" + path)
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.headers.add(name: "Content-Type", value: "application/octet-stream")
        let chunk = ByteBuffer(repeating: UInt8(ascii: "u"), count: 64 << 10)
        let (stream, continuation) = AsyncStream<ByteBuffer>.makeStream()
        for _ in 0..<size / chunk.readableBytes { continuation.yield(chunk) }
        continuation.finish()
        let chunks = size / chunk.readableBytes * chunk.readableBytes
        request.body = .stream(stream, length: declared ? .known(Int64(chunks)) : .unknown)
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        let body = try await response.body.collect(upTo: 1 << 20)
        return (response.status.code, Data(body.readableBytesView))
    }

    @Test(
        "a backend that answers before it reads the body never brings the server down: bodies of 64 KiB to 16 MiB, one at a time and twenty at once, and bodies cut off",
        .enabled(if: TestDestinationBackend.isInstalled, "needs PyJWT in .build-oidc/venv (see .ci/run)")
    )
    func earlyAnswers() async throws {
        try await Self.withBackend { _, api, _ in
            let alice = try await Self.device(api, "alice")
            let bob = try await Self.device(api, "bob")
            // One at a time, each body sent whole before the answer is read: the backend's
            // early 413 reaches the device, and the rest of the body is read and dropped.
            let port = api.running.port
            let head =
                "POST /apps/checks/destinations/orders/early?status=413 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Authorization: Bearer \(alice.token)\r\n"
            var refusals = 0
            for size in [64 << 10, 1 << 20, 2 << 20, 16 << 20] {
                let body = Data(repeating: UInt8(ascii: "u"), count: size)
                var chunked = Data((head + "Transfer-Encoding: chunked\r\n\r\n").utf8)
                for start in stride(from: 0, to: size, by: 64 << 10) {
                    let part = body[start..<min(start + (64 << 10), size)]
                    chunked += Data((String(part.count, radix: 16) + "\r\n").utf8) + part + Data("\r\n".utf8)
                }
                chunked += Data("0\r\n\r\n".utf8)
                let declared = Data((head + "Content-Length: \(size)\r\n\r\n").utf8) + body
                for (request, kind) in [(declared, "declared"), (chunked, "chunked")] {
                    let answer = try await onOwnThread { try Self.exchange(port: port, request) }
                    // Whole: as long as its head says. The backend's refusal, or, when it meets
                    // the body's end on its way and the HTTP client drops it, a 502.
                    let (head, content) = Self.split(answer)
                    let length = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                        .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) }
                    #expect(length == content.utf8.count, "\(size) bytes \(kind): \(answer.prefix(600))")
                    if head.hasPrefix("HTTP/1.1 413") {
                        #expect(content.contains("refused before reading the body"), "\(size) bytes \(kind)")
                        refusals += 1
                    } else {
                        #expect(head.hasPrefix("HTTP/1.1 502"), "\(size) bytes \(kind): \(answer.prefix(300))")
                        #expect(content.contains("DESTINATION_UNAVAILABLE"), "\(size) bytes \(kind)")
                    }
                }
            }
            #expect(refusals >= 4, "\(refusals) of 8 answers were the backend's refusal")
            // Twenty at once, to a backend that answers 401 and ends the connection with
            // the body unread (whose answer may be lost with it: a 502 then), and to one
            // that reads it after answering.
            try await withThrowingTaskGroup(of: Result<UInt, any Error>.self) { group in
                for index in 0..<20 {
                    group.addTask {
                        let closes = index % 4 < 2
                        let path = closes ? "/early?status=401&close=1" : "/early?status=401"
                        let token = index.isMultiple(of: 2) ? alice.token : bob.token
                        do {
                            return .success(try await Self.upload(api, token: token, size: 2 << 20, path: path).0)
                        } catch {
                            return .failure(error)
                        }
                    }
                }
                for try await outcome in group {
                    // An HTTP client that sees an early refusal stops sending, and may find
                    // the connection ended before it reads the answer: the server's part is
                    // to stay up, which the requests below show.
                    // Past a person's share (six at once), 429; a backend that cannot keep up
                    // with its connections, 502.
                    if case .success(let status) = outcome {
                        #expect([401, 429, 502].contains(status), "got \(status)")
                    }
                }
            }
            // Cut off: 16 MiB declared, 1 MiB sent, the connection closed.
            let cut = Data((head + "Content-Length: \(16 << 20)\r\n\r\n").utf8) + Data(repeating: 0x75, count: 1 << 20)
            for _ in 0..<5 {
                try await onOwnThread { try Self.sendAndClose(port: port, cut) }
            }
            // The server still answers, on its own and through the destination. Under a
            // loaded machine the requests above may still hold alice's share (429) or the
            // backend's connections (502) for a moment after their connections ended: those
            // two are asked again for up to 30 seconds, any other answer fails at once.
            var whoami = try await api.send(.get, "/apps/checks/destinations/orders/whoami", token: alice.token)
            for _ in 0..<300 where [.tooManyRequests, .badGateway].contains(whoami.status) {
                try await Task.sleep(for: .milliseconds(100))
                whoami = try await api.send(.get, "/apps/checks/destinations/orders/whoami", token: alice.token)
            }
            #expect(whoami.status == .ok, "\(whoami.status)")
            #expect(try whoami.json["sub"] as? String == "alice")
            let (status, echo) = try await Self.upload(api, token: alice.token, size: 1 << 20, declared: true)
            #expect(status == 200, "\(String(decoding: echo.prefix(300), as: UTF8.self))")
        }
    }

    /// An HTTP answer's head and body.
    static func split(_ answer: String) -> (head: String, body: String) {
        guard let end = answer.range(of: "\r\n\r\n") else { return (answer, "") }
        return (String(answer[..<end.lowerBound]), String(answer[end.upperBound...]))
    }

    /// Connects `socket` to `port` on loopback.
    static func connect(_ socket: Int32, port: Int) throws {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw TestServerError("cannot connect to port \(port)") }
    }

    @Test(
        "one person's downloads that are never read take their share of a backend, never everyone's",
        .enabled(if: TestDestinationBackend.isInstalled, "needs PyJWT in .build-oidc/venv (see .ci/run)")
    )
    func fairShare() async throws {
        try await Self.withBackend { _, api, _ in
            let alice = try await Self.device(api, "alice")
            let bob = try await Self.device(api, "bob")
            // Alice's device starts downloads of 256 MiB and reads no more than their heads.
            var stalled: [Int32] = []
            defer { stalled.forEach { close($0) } }
            let (port, token) = (api.running.port, alice.token)
            for _ in 0..<6 {  // one person's share of a destination
                let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                stalled.append(socket)
                let head = try await onOwnThread {
                    try Self.connect(socket, port: port)
                    let request =
                        "GET /apps/checks/destinations/orders/download?bytes=\(256 << 20) HTTP/1.1\r\n"
                        + "Host: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n\r\n"
                    _ = request.withCString { send(socket, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
                    var timeout = timeval(tv_sec: 30, tv_usec: 0)
                    setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                    var head = [UInt8](repeating: 0, count: 512)
                    let count = recv(socket, &head, head.count, 0)
                    return String(decoding: head.prefix(max(count, 0)), as: UTF8.self)
                }
                #expect(head.hasPrefix("HTTP/1.1 200"), "\(head)")
            }
            // Her share is taken: one more of hers waits for one of them to end.
            let more = try await api.send(.get, "/apps/checks/destinations/orders/whoami", token: alice.token)
            #expect(more.status == .tooManyRequests && more.code == "DESTINATION_BUSY", "\(more.status) \(more.text)")
            #expect(more.headers[.retryAfter] == "1")
            // Everyone else still gets through.
            for _ in 0..<10 {
                let asBob = try await api.send(.get, "/apps/checks/destinations/orders/whoami", token: bob.token)
                #expect(try asBob.json["sub"] as? String == "bob", "\(asBob.status) \(asBob.text)")
            }
            // Her downloads closed, her places come back.
            stalled.forEach { close($0) }
            stalled = []
            var status = HTTPResponse.Status.tooManyRequests
            for _ in 0..<300 where status != .ok {
                status = try await api.send(.get, "/apps/checks/destinations/orders/whoami", token: alice.token).status
                if status != .ok { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(status == .ok)
        }
    }

    /// Sends `request` on a connection of its own and closes it at once, answer unread.
    static func sendAndClose(port: Int, _ request: Data) throws {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw TestServerError("no socket") }
        defer { close(socket) }
        try Self.connect(socket, port: port)
        request.withUnsafeBytes { bytes in
            var sent = 0
            while sent < bytes.count {
                let count = send(socket, bytes.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
                guard count > 0 else { return }
                sent += count
            }
        }
    }

    /// Sends `request` whole on a connection of its own, then sends nothing more and
    /// reads the answer to its end: what a client that stops at the limit is told. (One
    /// that goes on sending after the server ended its connection may find it reset
    /// before it reads the answer.)
    static func exchange(port: Int, _ request: Data) throws -> String {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw TestServerError("no socket") }
        defer { close(socket) }
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        try Self.connect(socket, port: port)
        try request.withUnsafeBytes { bytes in
            var sent = 0
            while sent < bytes.count {
                let count = send(socket, bytes.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
                guard count > 0 else { throw TestServerError("the server stopped reading after \(sent) bytes") }
                sent += count
            }
        }
        var answer = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(socket, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            answer.append(contentsOf: buffer[0..<count])
        }
        return String(decoding: answer, as: UTF8.self)
    }

    @Test(
        "a body past 16 MiB is refused as too large, its length declared or chunked; one under it streams through chunked",
        .enabled(if: TestDestinationBackend.isInstalled, "needs PyJWT in .build-oidc/venv (see .ci/run)")
    )
    func uploadLimit() async throws {
        try await Self.withBackend { _, api, _ in
            let alice = try await Self.device(api, "alice")
            let (status, body) = try await Self.upload(api, token: alice.token, size: 3 << 20)
            #expect(status == 200, "\(String(decoding: body, as: UTF8.self))")
            let echo = try JSONSerialization.jsonObject(with: body) as? [String: Any]
            #expect(echo?["length"] as? Int == 3 << 20)

            let limit = 16 << 20
            let head =
                "POST /apps/checks/destinations/orders/echo HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Authorization: Bearer \(alice.token)\r\nContent-Type: application/octet-stream\r\n"
            // Declared: refused on its head, before a byte of the body.
            let port = api.running.port
            let declared = try await onOwnThread {
                try Self.exchange(port: port, Data((head + "Content-Length: \(limit + 1)\r\n\r\n").utf8))
            }
            // Chunked: refused once a byte past the limit came, the backend's request ended.
            var chunked = Data((head + "Transfer-Encoding: chunked\r\n\r\n").utf8)
            let chunk = Data(repeating: UInt8(ascii: "u"), count: 64 << 10)
            for _ in 0..<limit / chunk.count { chunked += Data("10000\r\n".utf8) + chunk + Data("\r\n".utf8) }
            chunked += Data("1\r\nu\r\n".utf8)
            let streamed = try await onOwnThread { [chunked] in try Self.exchange(port: port, chunked) }
            for (answer, kind) in [(declared, "declared"), (streamed, "chunked")] {
                #expect(answer.hasPrefix("HTTP/1.1 413"), "\(kind): \(answer.prefix(300))")
                #expect(answer.contains(#""code":"PAYLOAD_TOO_LARGE""#), "\(kind): \(answer.prefix(600))")
            }
            // The server still answers on other connections.
            let whoami = try await api.send(.get, "/apps/checks/destinations/orders/whoami", token: alice.token)
            #expect(try whoami.json["sub"] as? String == "alice")
        }
    }
}
