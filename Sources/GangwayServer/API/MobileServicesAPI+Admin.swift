import Foundation
import GangwayProtocol
import GangwayServerStorage
import HTTPTypes
import Logging
import OpenAPIRuntime

extension MobileServicesAPI {
    // MARK: Proof

    func proveAdminServer(_ input: Operations.ProveAdminServer.Input) async throws -> Operations.ProveAdminServer.Output
    {
        guard case .json(let body) = input.body else { throw APIError.badRequest("Send the body as JSON.") }
        guard AdminProof.isWellFormed(challenge: body.challenge) else {
            throw APIError.badRequest("challenge must be 32 bytes in base64url (43 characters).", code: .invalidField)
        }
        return .ok(
            .init(
                body: .json(
                    .init(proof: AdminProof.proof(challenge: body.challenge, tokenHash: try await adminTokenHash()))
                )
            )
        )
    }

    // MARK: Apps

    func listApps(_ input: Operations.ListApps.Input) async throws -> Operations.ListApps.Output {
        let apps = try await perform { try await storage.apps() }
        return .ok(.init(body: .json(apps.map(Self.wire))))
    }

    func createApp(_ input: Operations.CreateApp.Input) async throws -> Operations.CreateApp.Output {
        guard case .json(let body) = input.body else { throw APIError.badRequest("Send the body as JSON.") }
        try Validation.identifier(body.appID, "appID")
        try Validation.name(body.name, "name")
        var app = AppRecord(id: body.appID, name: body.name, createdAt: now())
        app.emailDomains = try await checkedDomains(body.emailDomains ?? [], for: app.id)
        app.minimumVersion = try Self.checkedVersion(body.minimumVersion)
        app.settings = try AppRecord.defaultSettings.merging(body.settings).validated()
        do {
            try await storage.insertApp(app)
        } catch  where error.code == .duplicate {
            throw APIError(.conflict, .appExists, "An app with this ID exists already.")
        } catch {
            throw APIError.storage(error)
        }
        if let note = AuditNote.current {
            note.target = "/admin/apps/\(app.id)"
            note.add("name: \(app.name)")
            if !app.emailDomains.isEmpty { note.add("emailDomains: [\(app.emailDomains.joined(separator: ", "))]") }
        }
        logger.info("app created", metadata: ["app": "\(app.id)"])
        return .created(.init(body: .json(Self.wire(app))))
    }

    func getApp(_ input: Operations.GetApp.Input) async throws -> Operations.GetApp.Output {
        return .ok(.init(body: .json(Self.wire(try await app(input.path.appID)))))
    }

    func updateApp(_ input: Operations.UpdateApp.Input) async throws -> Operations.UpdateApp.Output {
        guard case .json(let body) = input.body else { throw APIError.badRequest("Send the body as JSON.") }
        let old = try await app(input.path.appID)
        var app = old
        if let name = body.name {
            try Validation.name(name, "name")
            app.name = name
        }
        if let domains = body.emailDomains { app.emailDomains = try await checkedDomains(domains, for: app.id) }
        if let minimumVersion = body.minimumVersion {
            app.minimumVersion = minimumVersion.isEmpty ? nil : try Self.checkedVersion(minimumVersion)
        }
        let keptData = app.settings.passcodeResetKeepsData
        app.settings = try app.settings.merging(body.settings).validated()
        try await perform { try await storage.updateApp(app) }
        AuditNote.current?.changes(from: Self.wire(old), to: Self.wire(app))
        if keptData, !app.settings.passcodeResetKeepsData {
            // Turned off: the secrets given out so far must open nothing any more.
            try await rotateRecoverySecrets(try await perform { try await storage.devices(appID: app.id) })
        }
        logger.info("app updated", metadata: ["app": "\(app.id)"])
        return .ok(.init(body: .json(Self.wire(app))))
    }

    private func checkedDomains(_ domains: [String], for appID: String) async throws(APIError) -> [String] {
        guard domains.count <= 100 else {
            throw APIError.badRequest("At most 100 email domains.", code: .invalidDomain)
        }
        var checked: [String] = []
        for domain in domains {
            let domain = try Validation.emailDomain(domain)
            if checked.contains(domain) { continue }
            if let owner = try await perform({ try await storage.app(forEmailDomain: domain) }), owner.id != appID {
                throw APIError(.conflict, .domainTaken, "The domain \(domain) belongs to another app.")
            }
            checked.append(domain)
        }
        return checked
    }

    private static func checkedVersion(_ text: String?) throws(APIError) -> String? {
        guard let text, !text.isEmpty else { return nil }
        _ = try AppVersion(text)
        return text
    }

    static func wire(_ app: AppRecord) -> Components.Schemas.App {
        .init(
            appID: app.id,
            name: app.name,
            authType: .init(app.authentication.type),
            emailDomains: app.emailDomains,
            minimumVersion: app.minimumVersion,
            settings: app.settings
        )
    }

    // MARK: Devices

    func listDevices(_ input: Operations.ListDevices.Input) async throws -> Operations.ListDevices.Output {
        let app = try await app(input.path.appID)
        let query = input.query
        guard query.user != nil || query.status != nil || query.after != nil || query.limit != nil else {
            return .ok(
                .init(body: .json(try await perform { try await storage.devices(appID: app.id) }.map(Self.wire)))
            )
        }
        let limit = try Validation.listLimit(query.limit)
        if let user = query.user, !APILimits.usernamePrefix.contains(user.unicodeScalars.count) {
            throw APIError.badRequest(
                "user holds at most \(APILimits.usernamePrefix.upperBound) characters.",
                code: .invalidField
            )
        }
        if let after = query.after, !APILimits.identifier.contains(after.unicodeScalars.count) {
            throw APIError.badRequest(
                "after is a registration's ID: \(APILimits.identifier.lowerBound) to "
                    + "\(APILimits.identifier.upperBound) characters.",
                code: .invalidField
            )
        }
        // No user's name or registration's ID holds a control character (and PostgreSQL
        // text cannot hold a NUL).
        if Validation.hasControlCharacters(query.user ?? "") || Validation.hasControlCharacters(query.after ?? "") {
            return .ok(.init(body: .json([])))
        }
        let devices = try await perform {
            try await storage.devices(
                appID: app.id,
                userPrefix: query.user ?? "",
                status: query.status.map(DeviceStatus.init),
                after: query.after,
                limit: limit
            )
        }
        return .ok(.init(body: .json(devices.map(Self.wire))))
    }

    func updateDevice(_ input: Operations.UpdateDevice.Input) async throws -> Operations.UpdateDevice.Output {
        guard case .json(let body) = input.body else { throw APIError.badRequest("Send the body as JSON.") }
        let app = try await app(input.path.appID)
        let registrationID = input.path.registrationID
        guard
            var device = try await perform({ try await storage.device(appID: app.id, registrationID: registrationID) })
        else {
            throw APIError.notFound(.deviceNotFound, "There is no device registration with this ID.")
        }
        let status = DeviceStatus(body.status)
        AuditNote.current?.change("status", from: device.status.rawValue, to: status.rawValue)
        if status != device.status {
            device.status = status
            device.statusChangedAt = now()
            // A wipe destroys the recovery secret at once: nothing can unlock the old store.
            if status == .wiped { device.recoverySecret = try newRecoverySecret(for: device.registrationID) }
            // A lock or wipe ended the session there (its token stays readable until then,
            // so the device learns why): back to active, the device signs in anew.
            if status == .active {
                let (username, deviceID) = (device.username, device.deviceID)
                try await perform {
                    try await storage.revokeSessions(username: username, appID: app.id, deviceID: deviceID)
                }
            }
            try await perform { try await storage.saveDevice(device) }
            logger.notice(
                "device \(status.rawValue)",
                metadata: ["app": "\(app.id)", "registration": "\(registrationID)"]
            )
        }
        return .ok(.init(body: .json(Self.wire(device))))
    }

    static func wire(_ device: DeviceRecord) -> Components.Schemas.Device {
        .init(
            registrationID: device.registrationID,
            deviceID: device.deviceID,
            userID: device.username,
            deviceName: device.deviceName,
            platform: device.platform,
            appVersion: device.appVersion,
            status: .init(device.status),
            registeredAt: device.registeredAt,
            lastContactAt: device.lastContactAt,
            statusChangedAt: device.statusChangedAt,
            wipeCarriedOut: device.status == .wiped ? device.wipeReachedDevice : nil
        )
    }

    // MARK: Activation

    func createActivation(_ input: Operations.CreateActivation.Input) async throws -> Operations.CreateActivation.Output
    {
        let app = try await app(input.path.appID)
        return .created(.init(body: .json(try activation(of: app, validDays: input.query.validDays))))
    }

    /// A signed activation for `app` that activates for `validDays` (7 when `nil`),
    /// with a nonce of its own, logged with the app and the expiry.
    private func activation(of app: AppRecord, validDays: Int?) throws -> Components.Schemas.Activation {
        let days = validDays ?? 7
        guard APILimits.activationValidDays.contains(days) else {
            throw APIError.badRequest(
                "validDays must be between \(APILimits.activationValidDays.lowerBound) and \(APILimits.activationValidDays.upperBound).",
                code: .invalidField
            )
        }
        var configuration = configuration(of: app)
        // Whole seconds: what the payload's RFC 3339 date holds.
        let expiry = (now().timeIntervalSince1970 + Double(days) * 24 * 60 * 60).rounded(.down)
        configuration.activationExpiresAt = Date(timeIntervalSince1970: expiry)
        configuration.activationNonce = Self.randomBytes(16).base64URLEncoded
        logger.notice(
            "activation link made",
            metadata: [
                "app": "\(app.id)", "nonce": "\(configuration.activationNonce ?? "")", "days": "\(days)",
                "request": "\(RequestInfo.current.requestID)",
            ]
        )
        return try keys.activation.activation(for: configuration)
    }

    func getActivationQRCode(
        _ input: Operations.GetActivationQRCode.Input
    ) async throws -> Operations.GetActivationQRCode.Output {
        let app = try await app(input.path.appID)
        let activation = try activation(of: app, validDays: input.query.validDays)
        guard let png = QRCodes.png(activation.link) else {
            throw APIError(
                .serviceUnavailable,
                .qrUnavailable,
                "The activation link is longer than a QR code holds; use the link itself."
            )
        }
        return .ok(.init(body: .png(HTTPBody(png))))
    }

    // MARK: Logs

    func listLogs(_ input: Operations.ListLogs.Input) async throws -> Operations.ListLogs.Output {
        let app = try await app(input.path.appID)
        let query = input.query
        let limit = try Validation.listLimit(query.limit)
        if let user = query.user {
            try Validation.length(user, "user", APILimits.username)
            // No user's name holds a control character (and PostgreSQL text cannot hold a NUL).
            if Validation.hasControlCharacters(user) { return .ok(.init(body: .json([]))) }
        }
        if let before = query.before, before < 1 {
            throw APIError.badRequest("before must be an entry's ID, 1 or more.", code: .invalidField)
        }
        // Levels by rank, as the settings exchange names them.
        let ranked = Components.Schemas.LogSettings.LogLevelPayload.allCases.map(\.rawValue).filter { !$0.isEmpty }
        let filter = ServerStorage.LogFilter(
            username: query.user,
            levels: query.level.map { level in Array(ranked.drop { $0 != level.rawValue }) },
            since: query.since,
            until: query.until,
            before: query.before
        )
        let logs = try await perform { try await storage.logs(appID: app.id, filter: filter, limit: limit) }
        return .ok(
            .init(
                body: .json(
                    logs.map {
                        .init(
                            time: $0.time,
                            level: $0.level,
                            message: $0.message,
                            source: $0.source,
                            userID: $0.username,
                            deviceID: $0.deviceID,
                            receivedAt: $0.receivedAt,
                            id: $0.id
                        )
                    }
                )
            )
        )
    }

    // MARK: Users

    func listUsers(_ input: Operations.ListUsers.Input) async throws -> Operations.ListUsers.Output {
        let query = input.query
        guard query.prefix != nil || query.search != nil || query.after != nil || query.limit != nil else {
            return .ok(.init(body: .json(try await perform { try await storage.users() }.map(Self.wire))))
        }
        let limit = try Validation.listLimit(query.limit)
        for (name, text) in [("prefix", query.prefix), ("search", query.search), ("after", query.after)] {
            guard let text else { continue }
            guard APILimits.usernamePrefix.contains(text.unicodeScalars.count) else {
                throw APIError.badRequest(
                    "\(name) holds at most \(APILimits.usernamePrefix.upperBound) characters.",
                    code: .invalidField
                )
            }
        }
        // No user's name holds a control character (and PostgreSQL text cannot hold a NUL).
        if [query.prefix, query.search, query.after].contains(where: { Validation.hasControlCharacters($0 ?? "") }) {
            return .ok(.init(body: .json([])))
        }
        let users = try await perform {
            // Names are kept in lower case, as they are unique in any case: `BOB` is `bob`.
            if let search = query.search, !search.isEmpty {
                try await storage.users(
                    prefix: query.prefix ?? "",
                    containing: search,
                    after: query.after?.lowercased(),
                    limit: limit
                )
            } else {
                try await storage.users(prefix: query.prefix ?? "", after: query.after?.lowercased(), limit: limit)
            }
        }
        return .ok(.init(body: .json(users.map(Self.wire))))
    }

    func createUser(_ input: Operations.CreateUser.Input) async throws -> Operations.CreateUser.Output {
        guard case .json(let body) = input.body else { throw APIError.badRequest("Send the body as JSON.") }
        try Validation.username(body.username)
        try Validation.newPassword(body.password)
        if let name = body.displayName { try Validation.name(name, "displayName") }
        let username = body.username.lowercased()
        let user = UserRecord(
            username: username,
            displayName: body.displayName ?? body.username,
            passwordHash: try await passwords.hash(body.password),
            createdAt: now()
        )
        do {
            try await storage.insertUser(user)
        } catch  where error.code == .duplicate {
            throw APIError(.conflict, .userExists, "A user with this name exists already.")
        } catch {
            throw APIError.storage(error)
        }
        AuditNote.current?.target = "/admin/users/\(user.username)"
        AuditNote.current?.add("displayName: \(user.displayName)")
        return .created(.init(body: .json(Self.wire(user))))
    }

    func getUser(_ input: Operations.GetUser.Input) async throws -> Operations.GetUser.Output {
        return .ok(.init(body: .json(Self.wire(try await user(input.path.username)))))
    }

    func updateUser(_ input: Operations.UpdateUser.Input) async throws -> Operations.UpdateUser.Output {
        guard case .json(let body) = input.body else { throw APIError.badRequest("Send the body as JSON.") }
        let old = try await user(input.path.username)
        var user = old
        if let name = body.displayName {
            try Validation.name(name, "displayName")
            user.displayName = name
        }
        if let password = body.password {
            try Validation.newPassword(password)
            user.passwordHash = try await passwords.hash(password)
        }
        if let blocked = body.blocked { user.blocked = blocked }
        try await perform { try await storage.updateUser(user) }
        AuditNote.current?.change("displayName", from: old.displayName, to: user.displayName)
        AuditNote.current?.change("blocked", from: old.blocked, to: user.blocked)
        if body.password != nil { AuditNote.current?.add("password set") }
        if body.blocked == true || body.password != nil {
            // A blocked user, or one whose password changed, is signed out everywhere, and
            // the recovery secrets given out so far open nothing: whoever learns the new
            // password gets a secret that does not open a store wrapped before the change.
            try await perform { try await storage.revokeSessions(username: user.username, appID: nil, deviceID: nil) }
            try await rotateRecoverySecrets(try await perform { try await storage.devices(username: user.username) })
        }
        return .ok(.init(body: .json(Self.wire(user))))
    }

    /// Gives each registration a new recovery secret.
    private func rotateRecoverySecrets(_ devices: [DeviceRecord]) async throws(APIError) {
        for var device in devices {
            device.recoverySecret = try newRecoverySecret(for: device.registrationID)
            try await perform { try await storage.saveDevice(device) }
        }
        if !devices.isEmpty {
            logger.notice("recovery secrets replaced", metadata: ["registrations": "\(devices.count)"])
        }
    }

    func user(_ username: String) async throws(APIError) -> UserRecord {
        guard !Validation.hasControlCharacters(username),
            let user = try await perform({ try await storage.user(named: username.lowercased()) })
        else {
            throw APIError.notFound(.userNotFound, "There is no user with this name.")
        }
        return user
    }

    static func wire(_ user: UserRecord) -> Components.Schemas.User {
        .init(username: user.username, displayName: user.displayName, blocked: user.blocked, createdAt: user.createdAt)
    }
}

extension AppRecord {
    public static let defaultSettings = Components.Schemas.AppSettings.defaults
}
