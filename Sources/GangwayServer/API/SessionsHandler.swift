import Foundation
import GangwayProtocol
import GangwayServerStorage
import HTTPTypes
import Logging
import OpenAPIRuntime

/// Password sign-in and sign-out, the device cookies that let a known browser or device
/// through the throttle first, and the sessions they open.
struct SessionsHandler: APIHandler {
    let services: APIServices

    func signIn(_ input: Operations.SignIn.Input) async throws -> Operations.SignIn.Output {
        do {
            let output = try await passwordSignIn(input)
            services.metrics.signIn("succeeded")
            return output
        } catch let error as APIError {
            services.metrics.signIn(ServerMetrics.signInOutcome(of: error))
            throw error
        }
    }

    private func passwordSignIn(_ input: Operations.SignIn.Input) async throws -> Operations.SignIn.Output {
        let app = try await app(input.path.appID)
        // An app that federates sign-in must not take a password its provider never saw.
        guard app.authentication.type == .basic else { throw APIError.passwordSignInOff }
        guard case .json(let body) = input.body else { throw APIError.badRequest("Send the body as JSON.") }
        try Validation.length(body.username, "username", APILimits.username)
        try Validation.length(body.password, "password", APILimits.signInPassword)
        try Validation.identifier(body.deviceID, "deviceID")
        let username = body.username.lowercased()

        let cookieHash = try await knownDeviceCookie(body.deviceCookie, username: username)
        let user = try await checkedUser(
            username: username,
            password: body.password,
            cookieHash: cookieHash,
            appID: app.id
        )
        let newCookie = cookieHash == nil ? try await newDeviceCookie(for: user.username) : nil

        let (token, session) = try await openSession(app: app, username: user.username, deviceID: body.deviceID)
        logger.info("signed in", metadata: ["app": "\(app.id)", "request": "\(RequestInfo.current.requestID)"])
        return .created(
            .init(
                body: .json(
                    .init(
                        token: token,
                        user: .init(id: user.username, displayName: user.displayName),
                        expiresAt: session.expiresAt,
                        deviceCookie: newCookie
                    )
                )
            )
        )
    }

    /// The hash of `cookie` when it is a device cookie the server gave `username` and it
    /// is still young; `nil` for any other, so the answer to a sign-in tells nothing of it.
    func knownDeviceCookie(_ cookie: String?, username: String) async throws(APIError) -> Data? {
        guard let cookie, cookie.utf8.count <= 64 else { return nil }
        let hash = DeviceCookie.hash(cookie)
        guard let record = try await perform({ try await storage.deviceCookie(tokenHash: hash) }),
            record.username == username,
            now().timeIntervalSince(record.createdAt) < DeviceCookie.lifetime.seconds
        else { return nil }
        return hash
    }

    /// A new device cookie of `username`, recorded by its hash.
    func newDeviceCookie(for username: String) async throws(APIError) -> String {
        let cookie = DeviceCookie.make()
        try await perform {
            try await storage.insertDeviceCookie(
                DeviceCookieRecord(tokenHash: DeviceCookie.hash(cookie), username: username, createdAt: now())
            )
        }
        return cookie
    }

    func signOut(_ input: Operations.SignOut.Input) async throws -> Operations.SignOut.Output {
        let caller = try await authenticate(appID: input.path.appID, checksDevice: false)
        try await perform { try await storage.revokeSession(tokenHash: caller.tokenHash) }
        return .noContent(.init())
    }

    /// A new session of `username` on `deviceID`, after a person proved who they are (a
    /// password, an approved device code). A registration an operator locked stays locked
    /// until an operator unlocks it: signing in on it is refused with
    /// ``APIError/registrationLocked``, so a lock holds whoever knows the password.
    /// Counted among the sign-ins unless `signsIn` is false (a refresh).
    func openSession(
        app: AppRecord,
        username: String,
        deviceID: String,
        lifetime: TimeInterval? = nil,
        signsIn: Bool = true
    ) async throws(APIError) -> (token: String, record: SessionRecord) {
        let time = now()
        if let device = try await perform({
            try await storage.device(appID: app.id, username: username, deviceID: deviceID)
        }), device.status == .locked {
            logger.notice(
                "sign-in on a locked registration refused",
                metadata: ["app": "\(app.id)", "registration": "\(device.registrationID)"]
            )
            throw APIError.registrationLocked
        }
        let token = BearerToken.make()
        let session = SessionRecord(
            tokenHash: BearerToken.hash(token),
            appID: app.id,
            username: username,
            deviceID: deviceID,
            createdAt: time,
            expiresAt: time.addingTimeInterval(lifetime ?? settings.sessionLifetime.seconds)
        )
        try await perform { try await storage.insertSession(session) }
        if signsIn { await count([.signIns: 1], appID: app.id) }
        return (token, session)
    }

    /// The user whose right password this is, after the sign-in throttle let the attempt
    /// through (counted before the check); throws ``APIError/signInFailed`` for a wrong
    /// password, an unknown user or a blocked one alike, 429 or 503 as the throttle and
    /// the password gate say. Every way of signing in with a password goes through here.
    func checkedUser(
        username: String,
        password: String,
        cookieHash: Data?,
        appID: String
    ) async throws -> UserRecord {
        let address = RequestInfo.current.clientAddress(trusting: settings.trustedProxies)
        let (admission, user, matches) = try await passwords.admitted(preferred: cookieHash != nil) {
            [throttle, storage, passwords, cookieHash] in
            let admission = try await throttle.admit(username: username, address: address, cookieHash: cookieHash)
            // A name with control characters cannot exist; do not ask the database.
            let plausible = !Validation.hasControlCharacters(username)
            let user = plausible ? try await perform { try await storage.user(named: username) } : nil
            // Unknown users cost the same bcrypt check, so timing does not reveal who exists.
            let matches = try await passwords.verify(password, against: user?.passwordHash)
            return (admission, user, matches)
        }
        // A blocked user's right password is answered as a wrong one, and counts as one:
        // the answer never confirms a password of an account that is out.
        guard var user, matches, !user.blocked else {
            logger.notice(
                "sign-in failed",
                metadata: [
                    "app": "\(appID)", "request": "\(RequestInfo.current.requestID)",
                    "reason": "\(user?.blocked == true && matches ? "blocked" : "credentials")",
                ]
            )
            await count([.signInFailures: 1], appID: appID)
            throw APIError.signInFailed
        }
        try await throttle.succeeded(admission)
        // A hash made at another cost is replaced, so every user's check costs what an
        // unknown user's does.
        if passwords.needsRehash(user.passwordHash) {
            user.passwordHash = try await passwords.hash(password)
            try await perform { try await storage.updateUser(user) }
        }
        return user
    }
}
