import Foundation
import GangwayProtocol
import GangwayServer
import GangwayServerTesting
import GangwayTesting
import HTTPTypes
import Testing

@Suite("Devices: registration, recovery secrets, admin lock and wipe", .servingTurn, .tags(.postgres), .skipsTags)
struct DeviceTests {
    @Test("registering twice keeps the registration and its recovery secret", arguments: Backend.available)
    func register(backend: Backend) async throws {
        try await ServerFixture(backend: backend).runSeeded { api in
            let token = try await api.signIn("alice")
            let first = try await api.register(token: token)
            #expect(first.status == .active)
            #expect(Data(base64Encoded: first.recoverySecret ?? "")?.count == 32)
            // A passcode reset signs in again on the same device and gets the same secret back.
            let again = try await api.register(token: try await api.signIn("alice"))
            #expect(again.registrationID == first.registrationID)
            #expect(again.recoverySecret == first.recoverySecret)
            // Another user on the same device has a registration and secret of their own.
            let bob = try await api.register(token: try await api.signIn("bob"))
            #expect(bob.registrationID != first.registrationID)
            #expect(bob.recoverySecret != first.recoverySecret)

            let devices = try await api.admin(.get, "/admin/apps/checks/devices").decode(
                [Components.Schemas.Device].self
            )
            #expect(devices.map(\.userID).sorted() == ["alice", "bob"])
            #expect(devices.allSatisfy { $0.deviceName == "Stand 12 tablet" && $0.lastContactAt != nil })
            #expect(
                !(try await api.admin(.get, "/admin/apps/checks/devices").text.contains(
                    try #require(first.recoverySecret)
                ))
            )
        }
    }

    @Test("a device ID other than the session's is refused", arguments: Backend.available)
    func mismatch(backend: Backend) async throws {
        try await ServerFixture(backend: backend).runSeeded { api in
            let token = try await api.signIn("alice", device: "device-1")
            let reply = try await api.send(
                .put,
                "/apps/checks/devices/device-2",
                token: token,
                json: #"{"deviceName": "x", "platform": "linux", "appVersion": "1.0"}"#
            )
            #expect(reply.status == .forbidden)
            #expect(reply.code == "DEVICE_MISMATCH")
        }
    }

    @Test(
        "an admin lock answers 403 TRAFFIC_REG_LOCKED, refuses signing in on that device too, and holds until an admin unlocks it",
        arguments: Backend.available
    )
    func lock(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { api in
            let token = try await api.signIn("alice")
            let registration = try await api.register(token: token)
            fixture.clock.advance(by: .seconds(1))
            let locked = try await api.admin(
                .patch,
                "/admin/apps/checks/devices/\(registration.registrationID)",
                json: #"{"status": "locked"}"#
            )
            #expect(try locked.decode(Components.Schemas.Device.self).status == .locked)

            let refused = try await api.send(.get, "/apps/checks/settings", token: token)
            #expect(refused.status == .forbidden)
            #expect(refused.headers[.init("x-message-code")!] == "TRAFFIC_REG_LOCKED")
            #expect(refused.code == "TRAFFIC_REG_LOCKED")
            // Bob on the same device is not locked.
            let bob = try await api.signIn("bob")
            _ = try await api.register(token: bob)
            #expect(try await api.send(.get, "/apps/checks/settings", token: bob).status == .ok)

            // Signing in again on the locked device is refused: the lock holds whoever
            // knows the password. On another device, alice signs in.
            fixture.clock.advance(by: .seconds(1))
            let again = try await api.signInReply("alice")
            #expect(again.status == .forbidden && again.code == "TRAFFIC_REG_LOCKED")
            #expect(try await api.signInReply("alice", device: "alice-other-tablet").status == .created)
            // Unlocked by an admin, the device signs in anew.
            try await api.admin(
                .patch,
                "/admin/apps/checks/devices/\(registration.registrationID)",
                json: #"{"status": "active"}"#
            ).expect(.ok)
            let fresh = try await api.signIn("alice")
            #expect(try await api.send(.get, "/apps/checks/settings", token: fresh).status == .ok)
            // The locked session stays dead.
            #expect(try await api.send(.get, "/apps/checks/settings", token: token).status == .unauthorized)
            let after = try await api.register(token: fresh)
            #expect(after.registrationID == registration.registrationID)
            #expect(after.recoverySecret == registration.recoverySecret)
        }
    }

    @Test(
        "an admin wipe answers 403 TRAFFIC_REG_WIPED, and a new registration gets a new secret",
        arguments: Backend.available
    )
    func wipe(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { api in
            let token = try await api.signIn("alice")
            let registration = try await api.register(token: token)
            fixture.clock.advance(by: .seconds(1))
            try api.expectStatus(
                try await api.admin(
                    .patch,
                    "/admin/apps/checks/devices/\(registration.registrationID)",
                    json: #"{"status": "wiped"}"#
                ),
                .ok
            )
            for path in ["/apps/checks/settings"] {
                let refused = try await api.send(.get, path, token: token)
                #expect(refused.status == .forbidden)
                #expect(refused.headers[.init("x-message-code")!] == "TRAFFIC_REG_WIPED")
            }
            // The old session cannot register the device again.
            let reRegister = try await api.send(
                .put,
                "/apps/checks/devices/device-1",
                token: token,
                json: #"{"deviceName": "x", "platform": "linux", "appVersion": "1.0"}"#
            )
            #expect(reRegister.code == "TRAFFIC_REG_WIPED")

            fixture.clock.advance(by: .seconds(1))
            let fresh = try await api.signIn("alice")
            #expect(try await api.send(.get, "/apps/checks/settings", token: fresh).code == "TRAFFIC_REG_WIPED")
            let replaced = try await api.register(token: fresh)
            #expect(replaced.registrationID != registration.registrationID)
            #expect(replaced.recoverySecret != registration.recoverySecret)
            #expect(replaced.status == .active)
            #expect(try await api.send(.get, "/apps/checks/settings", token: fresh).status == .ok)
        }
    }

    @Test(
        "a password change and a block replace every recovery secret the user's registrations had",
        arguments: Backend.available
    )
    func recoverySecretRotation(backend: Backend) async throws {
        try await ServerFixture(backend: backend).runSeeded { api in
            let first = try await api.register(token: try await api.signIn("alice"))
            let other = try await api.register(
                token: try await api.signIn("alice", device: "device-2"),
                device: "device-2"
            )
            try api.expectStatus(
                try await api.admin(.patch, "/admin/users/alice", json: #"{"password": "a-new-password-7"}"#),
                .ok
            )
            let afterChange = try await api.register(token: try await api.signIn("alice", password: "a-new-password-7"))
            #expect(afterChange.registrationID == first.registrationID)
            #expect(afterChange.recoverySecret != first.recoverySecret)
            let otherAfter = try await api.register(
                token: try await api.signIn("alice", password: "a-new-password-7", device: "device-2"),
                device: "device-2"
            )
            #expect(otherAfter.recoverySecret != other.recoverySecret)

            try api.expectStatus(try await api.admin(.patch, "/admin/users/alice", json: #"{"blocked": true}"#), .ok)
            try api.expectStatus(try await api.admin(.patch, "/admin/users/alice", json: #"{"blocked": false}"#), .ok)
            let afterBlock = try await api.register(token: try await api.signIn("alice", password: "a-new-password-7"))
            #expect(afterBlock.recoverySecret != afterChange.recoverySecret)
            // Bob's secret is his own and stays.
            let bob = try await api.register(token: try await api.signIn("bob"))
            #expect(try await api.register(token: try await api.signIn("bob")).recoverySecret == bob.recoverySecret)
        }
    }

    @Test(
        "an admin can turn off passcode reset with data kept: no secret is released, and the old ones open nothing",
        arguments: Backend.available
    )
    func recoveryTurnedOff(backend: Backend) async throws {
        try await ServerFixture(backend: backend).runSeeded { api in
            let first = try await api.register(token: try await api.signIn("alice"))
            #expect(first.recoverySecret != nil)
            let off = try await api.admin(
                .patch,
                "/admin/apps/checks",
                json: #"{"settings": {"recoverySettings": {"passcodeResetKeepsData": false}}}"#
            )
            try api.expectStatus(off, .ok)
            #expect(off.text.contains(#""passcodeResetKeepsData":false"#))
            let without = try await api.register(token: try await api.signIn("alice"))
            #expect(without.recoverySecret == nil)
            try api.expectStatus(
                try await api.admin(
                    .patch,
                    "/admin/apps/checks",
                    json: #"{"settings": {"recoverySettings": {"passcodeResetKeepsData": true}}}"#
                ),
                .ok
            )
            let back = try await api.register(token: try await api.signIn("alice"))
            #expect(back.recoverySecret != nil)
            #expect(back.recoverySecret != first.recoverySecret)
        }
    }

    @Test(
        "a registration's recovery secret is released five times, then refused for 30 s and longer at each try, each release logged without it; other registrations are not held back",
        arguments: Backend.available
    )
    func recoveryReleaseLimited(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { api in
            let token = try await api.signIn("alice")
            var secrets: Set<String> = []
            for _ in 1...5 { secrets.insert(try #require(try await api.register(token: token).recoverySecret)) }
            let refused = try await api.send(
                .put,
                "/apps/checks/devices/device-1",
                token: token,
                json: #"{"deviceName": "x", "platform": "linux", "appVersion": "1.0"}"#
            )
            #expect(refused.status == .tooManyRequests)
            #expect(refused.code == "RECOVERY_THROTTLED")
            #expect(refused.headers[.retryAfter] == "30")
            #expect(!refused.text.contains(try #require(secrets.first)))
            #expect(fixture.logs.text.components(separatedBy: "recovery secret released").count - 1 == 5)
            for secret in secrets { #expect(!fixture.logs.text.contains(secret)) }
            #expect(try await api.register(token: try await api.signIn("bob")).recoverySecret != nil)
            fixture.clock.advance(by: .seconds(31))
            #expect(try await api.register(token: token).recoverySecret == secrets.first)
        }
    }

    @Test("an unknown registration is 404, an unknown status 400", arguments: Backend.available)
    func adminErrors(backend: Backend) async throws {
        try await ServerFixture(backend: backend).runSeeded { api in
            let missing = try await api.admin(.patch, "/admin/apps/checks/devices/nope", json: #"{"status": "locked"}"#)
            #expect(missing.status == .notFound)
            #expect(missing.code == "DEVICE_NOT_FOUND")
            let token = try await api.signIn("alice")
            let registration = try await api.register(token: token)
            let bad = try await api.admin(
                .patch,
                "/admin/apps/checks/devices/\(registration.registrationID)",
                json: #"{"status": "melted"}"#
            )
            #expect(bad.status == .badRequest)
            #expect(try await api.send(.get, "/apps/checks/settings", token: token).status == .ok)
        }
    }
}
