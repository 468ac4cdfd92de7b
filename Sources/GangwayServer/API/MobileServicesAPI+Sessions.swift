import Foundation
import GangwayProtocol
import HTTPTypes
import Logging
import OpenAPIRuntime

extension MobileServicesAPI {
    func signIn(_ input: Operations.SignIn.Input) async throws -> Operations.SignIn.Output {
        let app = try await app(input.path.appID)
        guard case .json(let body) = input.body else { throw APIError.badRequest("Send the body as JSON.") }
        try Validation.length(body.username, "username", 1...128)
        try Validation.length(body.password, "password", 1...1024)
        try Validation.identifier(body.deviceID, "deviceID")
        let username = body.username.lowercased()

        let throttleKey = SignInThrottle.key(username: username, address: RequestInfo.current.address)
        try await throttle.check(throttleKey)
        // A name with control characters cannot exist; do not ask the database.
        let plausible = !Validation.hasControlCharacters(username)
        let user = plausible ? try await perform { try await storage.user(named: username) } : nil
        // Unknown users cost the same bcrypt check, so timing does not reveal who exists.
        let matches = try await passwords.verify(
            body.password,
            against: user?.passwordHash ?? passwords.placeholderHash
        )
        // A blocked user's right password is answered as a wrong one, and counts as one:
        // the answer never confirms a password of an account that is out.
        guard let user, matches, !user.blocked else {
            try await throttle.recordFailure(throttleKey)
            logger.notice(
                "sign-in failed",
                metadata: [
                    "app": "\(app.id)", "request": "\(RequestInfo.current.requestID)",
                    "reason": "\(user?.blocked == true && matches ? "blocked" : "credentials")",
                ]
            )
            throw APIError.signInFailed
        }
        try await throttle.recordSuccess(throttleKey)

        let time = now()
        // Signing in again is what unlocks a device an admin locked; its older sessions end.
        if var device = try await perform({
            try await storage.device(appID: app.id, username: user.username, deviceID: body.deviceID)
        }), device.status == .locked {
            try await perform {
                try await storage.revokeSessions(username: user.username, appID: app.id, deviceID: body.deviceID)
            }
            device.status = .active
            device.statusChangedAt = time
            try await perform { try await storage.saveDevice(device) }
        }
        let token = BearerToken.make()
        let session = SessionRecord(
            tokenHash: BearerToken.hash(token),
            appID: app.id,
            username: user.username,
            deviceID: body.deviceID,
            createdAt: time,
            expiresAt: time.addingTimeInterval(settings.sessionLifetime.seconds)
        )
        try await perform { try await storage.insertSession(session) }
        logger.info("signed in", metadata: ["app": "\(app.id)", "request": "\(RequestInfo.current.requestID)"])
        return .created(
            .init(
                body: .json(
                    .init(
                        token: token,
                        user: .init(id: user.username, displayName: user.displayName),
                        expiresAt: session.expiresAt
                    )
                )
            )
        )
    }

    func signOut(_ input: Operations.SignOut.Input) async throws -> Operations.SignOut.Output {
        let caller = try await authenticate(appID: input.path.appID, checksDevice: false)
        try await perform { try await storage.revokeSession(tokenHash: caller.tokenHash) }
        return .noContent(.init())
    }
}
