import Foundation
import GangwayProtocol
import GangwayServer
import GangwayServerTesting
import GangwayTesting
import HTTPTypes
import Testing

@Suite(
    "Settings exchange: the reference shape, admin changes, invalid policies",
    .servingTurn,
    .tags(.postgres),
    .skipsTags
)
struct SettingsExchangeTests {
    @Test("the document has the reference system's key names", arguments: Backend.available)
    func shape(backend: Backend) async throws {
        try await ServerFixture(backend: backend).runSeeded { api in
            let token = try await api.signIn("alice")
            let reply = try await api.send(.get, "/apps/checks/settings", token: token)
            try api.expectStatus(reply, .ok)
            let root = try reply.json
            let exchange = try #require(
                (root["mobileservices"] as? [String: Any])?["settingsExchange"] as? [String: Any]
            )
            let policy = try #require(exchange["passwordPolicy"] as? [String: Any])
            #expect(policy["passwordPolicyMinLength"] as? Int == 8)
            #expect(policy["passwordPolicyRetryLimit"] as? Int == 10)
            #expect(policy["passwordPolicyLockTimeout"] as? Int == 300)
            #expect(policy["passwordPolicyFingerprintEnabled"] as? Bool == true)
            #expect(policy["passwordPolicyEnabled"] as? Bool == true)
            let shared = try #require(exchange["sharedDeviceSettings"] as? [String: Any])
            #expect(shared["allowUploadPendingChangesFromPreviousUser"] as? Bool == true)
            let block = try #require(exchange["blockWipingPolicy"] as? [String: Any])
            #expect(block["blockDisconnectedPeriod"] as? Int == 0)
            let logs = try #require(exchange["logSettings"] as? [String: Any])
            #expect(logs["logEnabled"] as? Bool == false)
            // The bytes encoded once are those the generated server writes: compact, sorted keys.
            #expect(reply.headers[.contentType] == "application/json; charset=utf-8")
            #expect(reply.text.hasPrefix(#"{"mobileservices":{"settingsExchange":{"blockWipingPolicy":"#))
            let again = try await api.send(.get, "/apps/checks/settings", token: token)
            #expect(again.body == reply.body)
        }
    }

    @Test(
        "the fast path answers as the generated route, errors included",
        arguments: Backend.available
    )
    func fastPath(backend: Backend) async throws {
        try await ServerFixture(backend: backend).runSeeded { api in
            let token = try await api.signIn("alice")
            let fast = try await api.send(.get, "/apps/checks/settings", token: token)
            // A trailing slash is not the fast path's; the router's generated route answers.
            let generated = try await api.send(.get, "/apps/checks/settings/", token: token)
            try api.expectStatus(generated, .ok)
            #expect(generated.body == fast.body)
            #expect(generated.headers[.contentType] == fast.headers[.contentType])
            // Errors on the fast path are the gateway's JSON documents, with the request ID.
            let noToken = try await api.send(.get, "/apps/checks/settings")
            #expect(noToken.status == .unauthorized)
            #expect(noToken.headers[.init("x-request-id")!] != nil)
            let noApp = try await api.send(.get, "/apps/nothing/settings", token: token)
            #expect(noApp.status == .notFound)
            #expect(noApp.code == "APP_NOT_FOUND")
            // Other methods on the path are still the router's: 405 with Allow.
            #expect(try await api.send(.delete, "/apps/checks/settings", token: token).status == .methodNotAllowed)
        }
    }

    @Test("an admin's change reaches the next settings download; other keys stay", arguments: Backend.available)
    func adminChange(backend: Backend) async throws {
        try await ServerFixture(backend: backend).runSeeded { api in
            let token = try await api.signIn("alice")
            let update = try await api.admin(
                .patch,
                "/admin/apps/checks",
                json: """
                    {"settings": {"passwordPolicy": {"passwordPolicyMinLength": 12, "passwordPolicyDigitRequired": true},
                     "sharedDeviceSettings": {"allowUploadPendingChangesFromPreviousUser": false},
                     "blockWipingPolicy": {"blockWipeEnabled": true, "blockDisconnectedPeriod": 7, "wipeDisconnectedPeriod": 30},
                     "consentSettings": {"eulaVersion": "2"}}}
                    """
            )
            try api.expectStatus(update, .ok)
            let exchange = try await api.send(.get, "/apps/checks/settings", token: token)
                .decode(Components.Schemas.SettingsExchange.self).mobileservices.settingsExchange
            #expect(exchange.passwordPolicy?.passwordPolicyMinLength == 12)
            #expect(exchange.passwordPolicy?.passwordPolicyDigitRequired == true)
            #expect(exchange.passwordPolicy?.passwordPolicyRetryLimit == 10)
            #expect(exchange.sharedDeviceSettings?.allowUploadPendingChangesFromPreviousUser == false)
            #expect(exchange.blockWipingPolicy?.wipeDisconnectedPeriod == 30)
            #expect(exchange.consentSettings?.eulaVersion == "2")
        }
    }

    @Test(
        "an invalid setting is 400 INVALID_SETTING and changes nothing",
        arguments: [
            #"{"passwordPolicy": {"passwordPolicyMinLength": 0}}"#,
            #"{"passwordPolicy": {"passwordPolicyRetryLimit": 0}}"#,
            #"{"passwordPolicy": {"passwordPolicyLockTimeout": -1}}"#,
            #"{"passwordPolicy": {"passwordPolicyHistorySize": 101}}"#,
            #"{"blockWipingPolicy": {"wipeDisconnectedPeriod": 5000}}"#,
            #"{"logSettings": {"maxEntriesPerUpload": 0}}"#,
            #"{"logSettings": {"uploadIntervalSeconds": 59}}"#,
            #"{"logSettings": {"uploadIntervalSeconds": 86401}}"#,
        ]
    )
    func invalid(settings: String) async throws {
        try await ServerFixture().runSeeded { api in
            let before = try await api.admin(.get, "/admin/apps/checks").body
            let reply = try await api.admin(.patch, "/admin/apps/checks", json: #"{"settings": \#(settings)}"#)
            #expect(reply.status == .badRequest)
            #expect(reply.code == "INVALID_SETTING")
            #expect(try await api.admin(.get, "/admin/apps/checks").body == before)
        }
    }

    @Test(
        "settings that contradict each other are 409 CONFLICTING_SETTINGS and change nothing",
        arguments: [
            #"{"passwordPolicy": {"passwordPolicyIsDigitsOnly": true, "passwordPolicyUpperRequired": true}}"#,
            #"{"passwordPolicy": {"passwordPolicyIsDigitsOnly": true, "passwordPolicyMinUniqueChars": 11}}"#,
        ]
    )
    func contradictory(settings: String) async throws {
        try await ServerFixture().runSeeded { api in
            let before = try await api.admin(.get, "/admin/apps/checks").body
            let reply = try await api.admin(.patch, "/admin/apps/checks", json: #"{"settings": \#(settings)}"#)
            #expect(reply.status == .conflict)
            #expect(reply.code == "CONFLICTING_SETTINGS")
            #expect(try await api.admin(.get, "/admin/apps/checks").body == before)
        }
    }
}
