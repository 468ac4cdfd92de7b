import Crypto
import Foundation
import GangwayProtocol
import GangwayServerStorage
import GangwayServerTesting
import GangwaySystem
import GangwayTesting
import HTTPTypes
import JWTKit
import Logging
import Testing

@testable import GangwayServer

/// The token signing keys rotate with overlap: a new key signs from the rotation on, the
/// old one stays in the key set until the last token it signed has expired (and a margin
/// for clocks), then goes; relying parties that verify by `kid` never meet a token they
/// cannot verify.
@Suite(
    "Signing keys: a rotation signs with a new key and keeps the old one published until its tokens end",
    .servingTurn,
    .tags(.postgres),
    .skipsTags
)
struct SigningKeyRotationTests {
    /// The `kid` in a JWT's header.
    static func kid(of jwt: String) throws -> String {
        try #require(JWTHeader.kid(of: jwt))
    }

    /// The `kid`s of the key set at `path`.
    static func kids(_ api: API, _ path: String) async throws -> [String] {
        let reply = try await api.send(.get, path)
        try api.expectStatus(reply, .ok)
        return try reply.decode(Components.Schemas.JsonWebKeySet.self).keys.map(\.kid)
    }

    /// An ID token from the device grant, approved by alice.
    static func deviceGrantIDToken(_ api: API, device: String) async throws -> (idToken: String, refresh: String) {
        let codes = try await OAuthDeviceGrantTests.start(api, device: device)
        try api.expectStatus(try await OAuthDeviceGrantTests.decide(api, codes.userCode), .ok)
        let reply = try await OAuthDeviceGrantTests.poll(api, codes)
        try api.expectStatus(reply, .ok)
        let body = try reply.decode(Components.Schemas.TokenResponse.self)
        return (try #require(body.idToken), body.refreshToken)
    }

    static func rotate(
        _ api: API,
        _ purpose: String,
        immediately: Bool = false
    ) async throws -> Components.Schemas.SigningKey {
        let reply = try await api.admin(
            .post,
            "/admin/keys/\(purpose)/rotations" + (immediately ? "?immediately=true" : "")
        )
        try api.expectStatus(reply, .created)
        return try reply.decode(Components.Schemas.SigningKey.self)
    }

    static func listed(_ api: API) async throws -> [Components.Schemas.SigningKey] {
        let reply = try await api.admin(.get, "/admin/keys")
        try api.expectStatus(reply, .ok)
        return try reply.decode([Components.Schemas.SigningKey].self)
    }

    /// An ID token from a refresh with `refresh`, and the refresh token that follows it.
    static func refreshed(_ api: API, _ refresh: String) async throws -> (idToken: String, refresh: String) {
        let reply = try await OAuthDeviceGrantTests.refresh(api, refresh)
        try api.expectStatus(reply, .ok)
        let body = try reply.decode(Components.Schemas.TokenResponse.self)
        return (try #require(body.idToken), body.refreshToken)
    }

    @Test(
        "ID tokens: a new key is published 5 minutes before it signs, the old one stays 15 minutes after, then goes",
        arguments: Backend.available
    )
    func idTokens(backend: Backend) async throws {
        try await ServerFixture(backend: backend).runSeeded { api in
            try await OAuthDeviceGrantTests.oauth2(api)
            let jwks = "/apps/checks/oauth/jwks"
            let before = try await Self.deviceGrantIDToken(api, device: "tablet-1")
            let first = try await Self.kids(api, jwks)
            #expect(first.count == 1)
            #expect(try Self.kid(of: before.idToken) == first.first)

            // The new key is in the key set at once, and the old one still signs.
            let rotatedAt = api.fixture.clock.now()
            let rotated = try await Self.rotate(api, "id-token")
            #expect(rotated.purpose == .idToken && rotated.state == .next)
            #expect(rotated.kid != first.first && rotated.publishedUntil == nil)
            #expect(abs(rotated.signsFrom.timeIntervalSince(rotatedAt) - 300) < 1, "the API's dates are whole seconds")
            #expect(try await Self.kids(api, jwks) == [rotated.kid] + first)
            var listed = try await Self.listed(api).filter { $0.purpose == .idToken }
            #expect(listed.map(\.kid) == [rotated.kid] + first)
            #expect(listed.map(\.state) == [.next, .signing])
            // The old key: published until its last token (signed just before the new key
            // signs) has ended, 10 minutes, and 5 more for clocks.
            let until = try #require(listed.last?.publishedUntil)
            #expect(abs(until.timeIntervalSince(rotated.signsFrom) - 15 * 60) < 0.01)
            let during = try await Self.refreshed(api, before.refresh)
            #expect(try Self.kid(of: during.idToken) == first.first)

            // Five minutes on, the new key signs.
            api.fixture.clock.advance(by: .seconds(300))
            let after = try await Self.refreshed(api, during.refresh)
            #expect(try Self.kid(of: after.idToken) == rotated.kid)
            listed = try await Self.listed(api).filter { $0.purpose == .idToken }
            #expect(listed.map(\.state) == [.signing, .published])
            let configuration = try await api.send(.get, "/apps/checks/.well-known/openid-configuration")
                .decode(Components.Schemas.OpenIDConfiguration.self)
            let keys = try await OpenIDConnectTests.keys(api, configuration)
            for token in [before.idToken, during.idToken, after.idToken] {
                #expect(try await keys.verify(token, as: OpenIDConnectTests.IDToken.self).sub.value == "alice")
            }
            #expect(!(try await api.admin(.get, "/admin/keys").text.contains("sealed")))

            // Just before the old key's end it is published; just after, it is gone.
            api.fixture.clock.advance(by: .seconds(15 * 60 - 1))
            #expect(try await Self.kids(api, jwks).count == 2)
            api.fixture.clock.advance(by: .seconds(2))
            #expect(try await Self.kids(api, jwks) == [rotated.kid])
            #expect(try await Self.listed(api).filter { $0.purpose == .idToken }.map(\.kid) == [rotated.kid])
            // The purge deletes its row; the keys that sign stay (one a purpose).
            let storage = api.fixture.server.storage
            #expect(try await storage.allSigningKeys().count == 4)
            _ = try await api.fixture.server.purgeExpired()
            let published = try await Self.listed(api).map(\.kid).sorted()
            #expect(try await storage.allSigningKeys().map(\.kid).sorted() == published)
            #expect(published.count == 3)
        }
    }

    @Test("immediately: the new key signs at once (a key thought exposed), the old one still published for its tokens")
    func immediately() async throws {
        try await ServerFixture().runSeeded { api in
            try await OAuthDeviceGrantTests.oauth2(api)
            let before = try await Self.deviceGrantIDToken(api, device: "tablet-1")
            let rotated = try await Self.rotate(api, "id-token", immediately: true)
            #expect(rotated.state == .signing && rotated.signsFrom == rotated.createdAt)
            let after = try await Self.refreshed(api, before.refresh)
            #expect(try Self.kid(of: after.idToken) == rotated.kid)
            #expect(try await Self.kids(api, "/apps/checks/oauth/jwks") == [rotated.kid, Self.kid(of: before.idToken)])
            // immediately=false is the default's lead.
            let staged = try await api.admin(.post, "/admin/keys/id-token/rotations?immediately=false")
            try api.expectStatus(staged, .created)
            let next = try staged.decode(Components.Schemas.SigningKey.self)
            #expect(next.state == .next)
            // A key rotated at once after it signs now and goes on signing: the staged one
            // never will, and is listed as published, not next.
            let exposed = try await Self.rotate(api, "id-token", immediately: true)
            let states = Dictionary(
                uniqueKeysWithValues: try await Self.listed(api).filter { $0.purpose == .idToken }.map {
                    ($0.kid, $0.state)
                }
            )
            #expect(states[exposed.kid] == .signing && states[next.kid] == .published, "\(states)")
            #expect(try await api.admin(.post, "/admin/keys/id-token/rotations?immediately=soon").status == .badRequest)
        }
    }

    @Test("a staged key that a later one will sign before, or as soon as, is listed as published, not next")
    func overtakenStagedKey() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        func key(_ generation: Int64, signsIn seconds: TimeInterval) -> SigningKeyRecord {
            SigningKeyRecord(
                purpose: .idToken,
                kid: "k\(generation)",
                generation: generation,
                sealedKey: Data(),
                createdAt: now,
                signsFrom: now.addingTimeInterval(seconds)
            )
        }
        let signing = key(1, signsIn: -600)
        // Staged for two hours (a stopped server's lead), then one for five minutes.
        let (early, late) = (key(3, signsIn: 300), key(2, signsIn: 7_200))
        let keys = [signing, late, early]
        let state = { (record: SigningKeyRecord) in
            SigningKeysHandler.wire(record, signing: signing, among: keys, at: now).state
        }
        #expect(state(signing) == .signing)
        #expect(state(early) == .next)
        #expect(state(late) == .published, "the later key signs from before it: it never will")
        // Made later but signing later: the earlier one signs in between, and is next.
        let longer = key(4, signsIn: 9_000)
        #expect(SigningKeysHandler.wire(early, signing: signing, among: keys + [longer], at: now).state == .next)
    }

    @Test("destination identities: a rotation publishes the new key beside the old at the destination keys")
    func destinationKeys() async throws {
        try await ServerFixture().runSeeded { api in
            let path = "/apps/checks/destination-keys"
            let first = try await Self.kids(api, path)
            #expect(first.count == 1)
            let rotated = try await Self.rotate(api, "destination")
            #expect(rotated.purpose == .destination)
            #expect(try await Self.kids(api, path) == [rotated.kid] + first)
            // Rotated again before the first new key signed: all three are published, and
            // the first key still signs.
            let again = try await Self.rotate(api, "destination")
            #expect(try await Self.kids(api, path) == [again.kid, rotated.kid] + first)
            // The fixture's clock stands still: both were made, and sign from, one instant,
            // so the first is overtaken before it signs, and is listed as published.
            let states = try await Self.listed(api).filter { $0.purpose == .destination }.map(\.state)
            #expect(states == [.next, .published, .signing])
            // The ID token key did not move.
            #expect(try await Self.listed(api).filter { $0.purpose == .idToken }.count == 1)
        }
    }

    @Test(
        "a purpose that is not one is refused 400 and nothing rotates; without the admin token nothing is listed or rotated"
    )
    func refusals() async throws {
        try await ServerFixture().runSeeded { api in
            let keys = try await Self.listed(api)
            for purpose in ["activations", "server-key", "ID-TOKEN", "%00", "id-token%0A"] {
                let reply = try await api.admin(.post, "/admin/keys/\(purpose)/rotations")
                #expect(reply.status == .badRequest, "\(purpose): \(reply.status)")
            }
            #expect(try await Self.listed(api) == keys)
            #expect(try await api.send(.post, "/admin/keys/id-token/rotations").status == .unauthorized)
            #expect(try await api.send(.get, "/admin/keys").status == .unauthorized)
            #expect(try await Self.listed(api) == keys)
        }
    }

    @Test(
        "PyJWT's JWKS client and Authlib verify the tokens of both keys across a rotation, and not the old one's after it goes",
        .enabled(
            if: TestIdentityProvider.isInstalled,
            "needs the Python environment in .build-oidc/venv (see .ci/run)"
        ),
        .tags(.slow)
    )
    func relyingParties() async throws {
        let python = try #require(TestIdentityProvider.python)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/oidc/verify_tokens.py").path
        try await ServerFixture(over: .loopback).runSeeded { api in
            try await OAuthDeviceGrantTests.oauth2(api)
            let issuer = api.running.url.absoluteString + "/apps/checks"
            func verify(_ tokens: [String]) async throws -> ExternalTool.Output {
                try #require(
                    try await ExternalTool("python", searchPath: [python]).run(
                        [script, "--jwks", issuer + "/oauth/jwks", "--issuer", issuer, "--audience", "checks"] + tokens
                    )
                )
            }
            // On the real clock (the libraries check iat and exp against it): the new key
            // signs at once.
            let before = try await Self.deviceGrantIDToken(api, device: "tablet-1")
            let rotated = try await Self.rotate(api, "id-token", immediately: true)
            let after = try await Self.refreshed(api, before.refresh).idToken
            let old = try Self.kid(of: before.idToken)
            #expect(try Self.kid(of: after) == rotated.kid && old != rotated.kid)

            let both = try await verify([before.idToken, after])
            for line in [
                "ok pyjwt \(old)", "ok authlib \(old)", "ok pyjwt \(rotated.kid)", "ok authlib \(rotated.kid)",
            ] {
                #expect(both.text.contains(line), "\(both.text)")
            }
            #expect(both.status == 0, "\(both.text)")

            // Once the old key's publication has ended, neither finds it.
            api.fixture.clock.advance(by: .seconds(15 * 60 + 1))
            let gone = try await verify([before.idToken])
            #expect(
                gone.text.contains("FAIL pyjwt \(old)") && gone.text.contains("FAIL authlib \(old)"),
                "\(gone.text)"
            )
            #expect(gone.status != 0)
        }
    }

    @Test(
        "on a schedule: nothing is due before the period, each purpose rotates once after it, however many processes look",
        arguments: Backend.available
    )
    func schedule(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { api in
            let keys = fixture.server.keys
            // Two processes' schedules: each its own rings over the one database.
            let schedules = (0..<2).map { _ in
                ScheduledKeyRotation(
                    rings: [keys.idTokens, keys.destinationTokens],
                    every: .seconds(24 * 60 * 60),
                    lead: .seconds(300),
                    now: fixture.clock.now,
                    logger: Logger(label: "test")
                )
            }
            let first = try await Self.listed(api)
            #expect(try await schedules[0].rotateDue(at: fixture.clock.now()).isEmpty)
            fixture.clock.advance(by: .seconds(24 * 60 * 60 - 1))
            #expect(try await schedules[1].rotateDue(at: fixture.clock.now()).isEmpty)
            #expect(try await Self.listed(api) == first)

            fixture.clock.advance(by: .seconds(1))
            let now = fixture.clock.now()
            async let one = schedules[0].rotateDue(at: now)
            async let other = schedules[1].rotateDue(at: now)
            let rotated = try await one + other
            #expect(rotated.map(\.purpose.rawValue).sorted() == ["destination", "id-token"])
            let listed = try await Self.listed(api)
            #expect(listed.filter { $0.state == .next }.map(\.kid).sorted() == rotated.map(\.kid).sorted())
            #expect(listed.filter { $0.state == .signing }.map(\.kid).sorted() == first.map(\.kid).sorted())
            // The new keys are a day from due.
            #expect(try await schedules[0].rotateDue(at: fixture.clock.now()).isEmpty)
        }
    }

    @Test("a database whose keys were kept as secrets by an earlier version keeps them: they move, and sign on")
    func earlierVersion() async throws {
        let fixture = try await ServerFixture()
        let server = fixture.server
        // As the version before rotation left it: each token key, and the activation key, a
        // secret of its own sealed under the server key, and no signing keys.
        let idKey = P256.Signing.PrivateKey()
        let destinationKey = P256.Signing.PrivateKey()
        let activationKey = P256.Signing.PrivateKey()
        _ = try await server.storage.driver.write("DELETE FROM signing_keys")
        for (name, key) in [
            (ServerKeys.StoredName.idTokens, idKey), (ServerKeys.StoredName.destinationTokens, destinationKey),
            (ServerKeys.StoredName.activation, activationKey),
        ] {
            try await server.storage.setSecret(
                named: name,
                to: try server.keys.server.seal(key.rawRepresentation, for: name)
            )
        }
        let restarted = try await MobileServicesServer(
            configuration: server.configuration,
            logger: fixture.logs.logger,
            now: fixture.clock.now
        )
        try await TestServer(server: restarted, adminToken: fixture.adminToken).run(seed: .checks, over: .router) {
            running in
            let api = API(running: running, fixture: fixture)
            try await OAuthDeviceGrantTests.oauth2(api)
            #expect(try await Self.kids(api, "/apps/checks/oauth/jwks") == [TokenSigner.kid(of: idKey.publicKey)])
            #expect(
                try await Self.kids(api, "/apps/checks/destination-keys")
                    == [TokenSigner.kid(of: destinationKey.publicKey)]
            )
            let token = try await Self.deviceGrantIDToken(api, device: "tablet-1").idToken
            #expect(try Self.kid(of: token) == TokenSigner.kid(of: idKey.publicKey))
        }
        // The secrets are gone: the keys live sealed in the signing keys alone.
        #expect(try await restarted.storage.secret(named: ServerKeys.StoredName.idTokens) == nil)
        #expect(try await restarted.storage.secret(named: ServerKeys.StoredName.destinationTokens) == nil)
        #expect(try await restarted.storage.secret(named: ServerKeys.StoredName.activation) == nil)
        #expect(try await restarted.activationPublicKeyPEM() == activationKey.publicKey.pemRepresentation)
        let stored = try await restarted.storage.allSigningKeys()
        #expect(stored.map(\.generation) == [1, 1, 1])
        #expect(stored.map(\.purpose) == [.activation, .destination, .idToken])
        #expect(!stored.contains { $0.sealedKey.range(of: idKey.rawRepresentation) != nil })
        #expect(!stored.contains { $0.sealedKey.range(of: activationKey.rawRepresentation) != nil })
    }

    @Test(
        "activation keys across processes: a rotation by one is what the other signs with at once, endorsed, and two at once keep one chain",
        arguments: Backend.available
    )
    func activationAcrossProcesses(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { _ in
            let other = try await MobileServicesServer(
                configuration: fixture.server.configuration,
                logger: fixture.logs.logger,
                now: fixture.clock.now
            )
            try await TestServer(server: other, adminToken: fixture.adminToken).run { _ in
                let first = try await fixture.server.keys.activation.chain().chain.newest
                let rotated = try #require(
                    try await fixture.server.keys.activationKeys.rotate(at: fixture.clock.now(), lead: .seconds(300))
                )
                #expect(rotated.signsFrom == fixture.clock.now() && rotated.publishedUntil == nil)
                #expect(rotated.endorsement != nil && rotated.generation == 2)
                // The other process reads the keys through its cache: it has the new key once
                // it hears the notice on PostgreSQL, once its cache expires on SQLite.
                #expect(
                    try await eventually { try await other.keys.activation.chain().chain.keys.count == 2 },
                    "the other process signs with the new key"
                )
                let (chain, signer) = try await other.keys.activation.chain()
                #expect(TokenSigner.kid(of: signer.publicKey) == rotated.kid)
                #expect(chain.leads(from: first))

                // Two rotations at once, each endorsed by the key it read as newest: the chain
                // stays one chain, whichever stored first.
                async let one = fixture.server.keys.activationKeys.rotate(at: fixture.clock.now(), lead: .zero)
                async let two = other.keys.activationKeys.rotate(at: fixture.clock.now(), lead: .zero)
                let made = try await [one, two].compactMap { $0 }
                #expect(!made.isEmpty)
                let stored = try await fixture.server.storage.allSigningKeys().filter { $0.purpose == .activation }
                #expect(stored.count == 2 + made.count)
                let after = try await fixture.server.keys.activation.chain().chain
                #expect(after.keys.count == stored.count && after.leads(from: first))

                // A key endorsed by one that is no longer the newest is not stored.
                let stale = SigningKeyRecord(
                    purpose: .activation,
                    kid: "stale",
                    sealedKey: Data([1]),
                    createdAt: fixture.clock.now(),
                    signsFrom: fixture.clock.now(),
                    endorsement: Data([2])
                )
                #expect(
                    try await fixture.server.storage.rotateSigningKey(
                        to: stale,
                        previousPublishedUntil: nil,
                        onlyIfNewestIs: rotated.kid
                    ) == nil
                )
            }
        }
    }
}
