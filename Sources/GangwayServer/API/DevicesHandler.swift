import Crypto
import Foundation
import GangwayProtocol
import GangwayServerStorage
import HTTPTypes
import Logging
import OpenAPIRuntime

/// Device registrations: a device registers for its user, reads the app's settings,
/// and is listed, locked, wiped and unlocked by the admin.
struct DevicesHandler: APIHandler {
    let services: APIServices

    /// What a registration's recovery secret is sealed for: opened for another
    /// registration, it fails.
    static func recoveryPurpose(registrationID: String) -> String { "recovery:\(registrationID)" }

    func getSettings(_ input: Operations.GetSettings.Input) async throws -> Operations.GetSettings.Output {
        .ok(.init(body: .json(try await settingsExchange(appID: input.path.appID))))
    }

    /// The settings exchange for the signed-in caller; notes the contact.
    func settingsExchange(appID: String) async throws -> Components.Schemas.SettingsExchange {
        let caller = try await authenticate(appID: appID)
        try await noteContact(caller.device)
        let settings = caller.app.settings
        let schemas = try await perform { try await storage.entitySchemas(appID: caller.app.id) }
        let body = Components.Schemas.SettingsExchangeBody(
            passwordPolicy: settings.passwordPolicy,
            sharedDeviceSettings: settings.sharedDeviceSettings,
            blockWipingPolicy: settings.blockWipingPolicy,
            logSettings: settings.logSettings,
            consentSettings: settings.consentSettings,
            dataSettings: settings.dataSettings,
            changeSealingKey: keys.changeSealingPublicKey,
            entitySchemas: schemas.isEmpty ? nil : .init(additionalProperties: schemas.mapValues { .init($0) })
        )
        return .init(mobileservices: .init(settingsExchange: body))
    }

    func registerDevice(_ input: Operations.RegisterDevice.Input) async throws -> Operations.RegisterDevice.Output {
        let caller = try await authenticate(appID: input.path.appID, allowsReplacingWiped: true)
        guard case .json(let body) = input.body else { throw APIError.badRequest("Send the body as JSON.") }
        try Validation.identifier(input.path.deviceID, "deviceID")
        guard input.path.deviceID == caller.session.deviceID else {
            throw APIError(.forbidden, .deviceMismatch, "The session was signed in on another device.")
        }
        try Validation.text(body.deviceName, "deviceName", APILimits.name)
        try Validation.text(body.platform, "platform", APILimits.identifier)
        try Validation.text(body.appVersion, "appVersion", APILimits.appVersion)
        let changeKey = try body.changeKey.map { text throws(APIError) in try Self.changeKey(text) }

        let time = now()
        var device: DeviceRecord
        let isNew = caller.device == nil || caller.device?.status == .wiped
        if let existing = caller.device, existing.status != .wiped {
            device = existing
            device.deviceName = body.deviceName
            device.platform = body.platform
            device.appVersion = body.appVersion
            device.recoverySecret = try sealedRecoverySecret(of: existing)
            if let changeKey { device.changeKey = changeKey }
        } else {
            // New, or replacing a wiped registration: a new ID and a new recovery secret.
            let registrationID = UUID().lowercasedText
            device = DeviceRecord(
                registrationID: registrationID,
                appID: caller.app.id,
                username: caller.session.username,
                deviceID: caller.session.deviceID,
                deviceName: body.deviceName,
                platform: body.platform,
                appVersion: body.appVersion,
                statusChangedAt: time,
                recoverySecret: try newRecoverySecret(for: registrationID),
                registeredAt: time,
                // Set by the contact below, which counts the device active.
                lastContactAt: nil,
                changeKey: changeKey
            )
        }
        // The secret opens the device's store without the passcode: each release is
        // counted, limited and logged (never the secret itself).
        let keepsData = caller.app.settings.passcodeResetKeepsData
        if keepsData {
            try await throttle.admitRecoveryRelease(
                registrationID: device.registrationID,
                username: caller.session.username
            )
        }
        try await perform { try await storage.saveDevice(device) }
        try await perform { try await storage.touchDevice(registrationID: device.registrationID, at: time) }
        if isNew { await count([.registrations: 1], appID: caller.app.id) }
        if keepsData {
            logger.notice(
                "recovery secret released",
                metadata: [
                    "app": "\(caller.app.id)", "registration": "\(device.registrationID)",
                    "request": "\(RequestInfo.current.requestID)",
                ]
            )
        }
        return .ok(
            .init(
                body: .json(
                    .init(
                        registrationID: device.registrationID,
                        deviceID: device.deviceID,
                        status: .init(device.status),
                        recoverySecret: keepsData ? try recoverySecret(of: device).base64EncodedString() : nil,
                        registeredAt: device.registeredAt
                    )
                )
            )
        )
    }

    /// Records that the device reached the server, at most once per resolution period.
    func noteContact(_ device: DeviceRecord?) async throws(APIError) {
        guard let device else { return }
        let time = now()
        // Each hour's first contact is recorded, so the device counts among that hour's active ones.
        if let last = device.lastContactAt, time.timeIntervalSince(last) < settings.contactResolution.seconds,
            ActivityBucket.hour.start(of: last) == ActivityBucket.hour.start(of: time)
        {
            return
        }
        try await perform { try await storage.touchDevice(registrationID: device.registrationID, at: time) }
    }

    /// A registered key for signing changes: a P-256 point in base64url. Text of another
    /// form is a 400; 65 bytes that are no point of the curve, a 422.
    static func changeKey(_ text: String) throws(APIError) -> Data {
        guard Validation.isBase64URL(text, length: 87...87), let bytes = Data(base64URLEncoded: text), bytes.count == 65
        else {
            throw APIError.badRequest("changeKey is 65 bytes in base64url (87 characters).", code: .invalidField)
        }
        guard (try? ChangeVerifyingKey(x963Representation: bytes)) != nil else {
            throw APIError(.unprocessableContent, .invalidChangeKey, "changeKey is not a P-256 public key.")
        }
        return bytes
    }

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

    /// A new recovery secret for a registration, as stored: sealed with the server key.
    func newRecoverySecret(for registrationID: String) throws(APIError) -> Data {
        do {
            return try keys.server.seal(Self.randomBytes(32), for: Self.recoveryPurpose(registrationID: registrationID))
        } catch {
            throw .storage(StorageError(.unavailable, "a recovery secret cannot be sealed"))
        }
    }

    /// The recovery secret of a registration, opened (one stored before secrets were
    /// sealed is its 32 bytes as they are).
    func recoverySecret(of device: DeviceRecord) throws(APIError) -> Data {
        do {
            return try keys.server.open(
                device.recoverySecret,
                for: Self.recoveryPurpose(registrationID: device.registrationID),
                plainLength: 32
            )
        } catch {
            throw .storage(StorageError(.corrupt, "a recovery secret does not open with the server key"))
        }
    }

    /// The registration's recovery secret as it should be stored: sealed, sealing one
    /// stored before secrets were.
    func sealedRecoverySecret(of device: DeviceRecord) throws(APIError) -> Data {
        guard device.recoverySecret.count == 32 else { return device.recoverySecret }
        do {
            return try keys.server.seal(
                device.recoverySecret,
                for: Self.recoveryPurpose(registrationID: device.registrationID)
            )
        } catch {
            throw .storage(StorageError(.unavailable, "a recovery secret cannot be sealed"))
        }
    }

    /// Gives each registration a new recovery secret.
    func rotateRecoverySecrets(_ devices: [DeviceRecord]) async throws(APIError) {
        for var device in devices {
            device.recoverySecret = try newRecoverySecret(for: device.registrationID)
            try await perform { try await storage.saveDevice(device) }
        }
        if !devices.isEmpty {
            logger.notice("recovery secrets replaced", metadata: ["registrations": "\(devices.count)"])
        }
    }
}

extension Components.Schemas.DeviceStatus {
    init(_ status: DeviceStatus) {
        switch status {
        case .active: self = .active
        case .locked: self = .locked
        case .wiped: self = .wiped
        }
    }
}

extension DeviceStatus {
    init(_ status: Components.Schemas.DeviceStatus) {
        switch status {
        case .active: self = .active
        case .locked: self = .locked
        case .wiped: self = .wiped
        }
    }

}
