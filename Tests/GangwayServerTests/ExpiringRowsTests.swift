import Foundation
import GangwayProtocol
import GangwayServerTesting
import GangwaySystem
import GangwayTesting
import HTTPTypes
import Testing

@testable import GangwayServer
@testable import GangwayServerStorage

/// Rows with an end are deleted once they are of no use, in one sweep for every table
/// (``ExpiringRows``); device authorizations are limited per address and app.
@Suite(
    "Expiring rows: device grants, codes, sign-ins, sessions and refresh tokens are deleted",
    .servingTurn,
    .tags(.postgres),
    .skipsTags
)
struct ExpiringRowsTests {
    @Test("one sweep deletes what ended, after each kind's grace, on both stores", arguments: Backend.available)
    func purge(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { api in
            try await OAuthDeviceGrantTests.oauth2(api)
            let storage = fixture.server.storage
            let pending = try await OAuthDeviceGrantTests.start(api, device: "tablet-1")
            let tokens = try await OAuthDeviceGrantTests.signedIn(api, device: "tablet-2")
            let pendingCode = try #require(UserCode.normalized(pending.userCode))
            // A guess, counted: a row in the attempts table.
            _ = try await OAuthDeviceGrantTests.decide(api, "BBBB-BBBB")

            // Nothing has ended yet: a sweep deletes nothing of it.
            try await fixture.server.purgeExpired()
            #expect(try await storage.deviceGrant(userCode: pendingCode) != nil)

            // Ten minutes on, the code ended; for an hour the device still hears why.
            fixture.clock.advance(by: .seconds(11 * 60))
            try await fixture.server.purgeExpired()
            #expect(
                try OAuthDeviceGrantTests.error(of: try await OAuthDeviceGrantTests.poll(api, pending))
                    == "expired_token"
            )

            // Past every end and grace (refresh tokens live 30 days): all gone.
            fixture.clock.advance(by: .seconds(32 * 24 * 60 * 60))
            let deleted = try await fixture.server.purgeExpired()
            #expect(deleted >= 5, "\(deleted)")
            #expect(try await storage.deviceGrant(userCode: pendingCode) == nil)
            #expect(try await storage.refreshToken(tokenHash: BearerToken.hash(tokens.refresh)) == nil)
            #expect(try await storage.session(tokenHash: BearerToken.hash(tokens.access)) == nil)
            #expect(
                try OAuthDeviceGrantTests.error(of: try await OAuthDeviceGrantTests.poll(api, pending))
                    == "invalid_grant"
            )
            #expect(
                try OAuthDeviceGrantTests.error(of: try await OAuthDeviceGrantTests.refresh(api, tokens.refresh))
                    == "invalid_grant"
            )
            // A second sweep finds nothing left.
            #expect(try await fixture.server.purgeExpired() == 0)
        }
    }

    @Test("every kind of expiring row is in the one table, and each table exists in both dialects")
    func oneTable() {
        let tables = Set(ExpiringRows.rules.map(\.table))
        #expect(
            tables == [
                "oauth_device_grants", "oauth_authorization_codes", "federated_sign_ins", "sessions", "refresh_tokens",
                "sign_in_attempts", "device_cookies", "operator_sessions", "ingest_batches", "signing_keys",
            ]
        )
        for dialect in [StorageKind.sqlite, .postgresql] {
            let schema = ServerSchema.migrations(dialect).flatMap(\.statements).joined(separator: "\n")
            for rule in ExpiringRows.rules {
                #expect(schema.contains("CREATE TABLE \(rule.table) ("), "\(rule.table)")
            }
        }
    }

    @Test("device authorizations: 30 from one address for one app, then 429 with Retry-After; others go on")
    func deviceAuthorizationThrottle() async throws {
        let fixture = try await ServerFixture(over: .loopback) { configuration in
            configuration.trustedProxies = [try! #require(AddressRange("127.0.0.0/8"))]
        }
        try await fixture.runSeeded { api in
            try await OAuthDeviceGrantTests.oauth2(api)
            func start(from address: String) async throws -> API.Reply {
                try await api.send(
                    .post,
                    "/apps/checks/oauth/device_authorization",
                    json: RunningTestServer.formBody([("client_id", "checks")]),
                    headers: [
                        .contentType: "application/x-www-form-urlencoded", HTTPField.Name("X-Forwarded-For")!: address,
                    ]
                )
            }
            for _ in 0..<30 { try api.expectStatus(try await start(from: "198.51.100.7"), .ok) }
            let refused = try await start(from: "198.51.100.7")
            #expect(refused.status == .tooManyRequests)
            #expect(try OAuthDeviceGrantTests.error(of: refused) == "temporarily_unavailable")
            #expect(Int(refused.headers[.retryAfter] ?? "") ?? 0 > 0)
            #expect(refused.headers[.cacheControl] == "no-store")
            try api.expectStatus(try await start(from: "198.51.100.8"), .ok)
        }
    }
}
