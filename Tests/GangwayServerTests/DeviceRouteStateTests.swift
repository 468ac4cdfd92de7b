import Foundation
import GangwayProtocol
import GangwayServer
import GangwayServerTesting
import GangwayTesting
import HTTPTypes
import Testing

@Suite(
    "The settings, logs, data and registration routes against five states of the caller",
    .servingTurn,
    .tags(.postgres),
    .skipsTags
)
struct DeviceRouteStateTests {
    /// The routes a device calls with its session, each with a body it accepts; the
    /// registration last, since it changes the state the others are tried in.
    static let routes: [(name: String, method: HTTPRequest.Method, path: String, body: String?)] = [
        ("settings", .get, "/apps/checks/settings", nil),
        (
            "logs", .post, "/apps/checks/logs",
            #"{"entries": [{"time": "2026-11-22T06:00:00Z", "level": "info", "message": "x"}]}"#
        ),
        ("data", .get, "/apps/checks/data/checks", nil),
        (
            "registration", .put, "/apps/checks/devices/device-1",
            #"{"deviceName": "Stand 12 tablet", "platform": "linux", "appVersion": "1.0.0"}"#
        ),
    ]

    /// What each route answers a caller in each state: a status and, for refusals, the code.
    static let expected: [String: [String: (HTTPResponse.Status, String?)]] = [
        "no token": [
            "settings": (.unauthorized, "UNAUTHORIZED"), "registration": (.unauthorized, "UNAUTHORIZED"),
            "logs": (.unauthorized, "UNAUTHORIZED"), "data": (.unauthorized, "UNAUTHORIZED"),
        ],
        "another app's session": [
            "settings": (.unauthorized, "UNAUTHORIZED"), "registration": (.unauthorized, "UNAUTHORIZED"),
            "logs": (.unauthorized, "UNAUTHORIZED"), "data": (.unauthorized, "UNAUTHORIZED"),
        ],
        "locked registration": [
            "settings": (.forbidden, "TRAFFIC_REG_LOCKED"), "registration": (.forbidden, "TRAFFIC_REG_LOCKED"),
            "logs": (.forbidden, "TRAFFIC_REG_LOCKED"), "data": (.forbidden, "TRAFFIC_REG_LOCKED"),
        ],
        "wiped registration": [
            "settings": (.forbidden, "TRAFFIC_REG_WIPED"), "registration": (.forbidden, "TRAFFIC_REG_WIPED"),
            "logs": (.forbidden, "TRAFFIC_REG_WIPED"), "data": (.forbidden, "TRAFFIC_REG_WIPED"),
        ],
        // A device ID is whatever the client sends: a new one gets the settings and may
        // register, and nothing else until it has (a block is what keeps a person out).
        "a device ID with no registration": [
            "settings": (.ok, nil), "registration": (.ok, nil),
            "logs": (.forbidden, "DEVICE_NOT_REGISTERED"), "data": (.forbidden, "DEVICE_NOT_REGISTERED"),
        ],
    ]

    @Test(
        "no token, another app's session, a locked or wiped registration, an unregistered device ID",
        arguments: Backend.available
    )
    func matrix(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { api in
            try await api.admin(
                .patch,
                "/admin/apps/checks",
                json: #"{"settings": {"logSettings": {"logEnabled": true}}}"#
            )
            .expect(.ok)
            try await api.admin(.post, "/admin/apps", json: #"{"appID": "other", "name": "Other"}"#).expect(.created)
            let other = try await api.send(
                .post,
                "/apps/other/sessions",
                json: #"{"username": "alice", "password": "alice-password", "deviceID": "device-1"}"#
            ).decode(Components.Schemas.Session.self).token

            // Alice's registration is locked and Bob's wiped, each caller keeping the session
            // it had before the admin acted.
            let locked = try await api.signIn("alice", device: "device-1")
            let lockedRegistration = try await api.register(token: locked, device: "device-1")
            let wiped = try await api.signIn("bob", device: "device-1")
            let wipedRegistration = try await api.register(token: wiped, device: "device-1")
            fixture.clock.advance(by: .seconds(1))
            for (registration, status) in [(lockedRegistration, "locked"), (wipedRegistration, "wiped")] {
                try await api.admin(
                    .patch,
                    "/admin/apps/checks/devices/\(registration.registrationID)",
                    json: #"{"status": "\#(status)"}"#
                ).expect(.ok)
            }
            let unregistered = try await api.signIn("alice", device: "device-9")

            let callers: [(String, String?)] = [
                ("no token", nil), ("another app's session", other), ("locked registration", locked),
                ("wiped registration", wiped), ("a device ID with no registration", unregistered),
            ]
            for (state, token) in callers {
                for route in Self.routes {
                    // The unregistered device registers under its own ID.
                    let path =
                        state == "a device ID with no registration"
                        ? route.path.replacingOccurrences(of: "device-1", with: "device-9") : route.path
                    let reply = try await api.send(route.method, path, token: token, json: route.body)
                    let (status, code) = try #require(Self.expected[state]?[route.name])
                    #expect(reply.status == status, "\(state): \(route.name)")
                    if let code { #expect(reply.code == code, "\(state): \(route.name)") }
                }
            }
        }
    }
}
