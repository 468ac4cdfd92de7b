import Foundation
import GangwayProtocol
import GangwayServerStorage
import HTTPTypes
import Logging
import OpenAPIRuntime

extension MobileServicesAPI {
    func getSettings(_ input: Operations.GetSettings.Input) async throws -> Operations.GetSettings.Output {
        .ok(.init(body: .json(try await settingsExchange(appID: input.path.appID))))
    }

    /// The settings exchange for the signed-in caller; notes the contact.
    func settingsExchange(appID: String) async throws -> Components.Schemas.SettingsExchange {
        let caller = try await authenticate(appID: appID)
        try await noteContact(caller.device)
        let settings = caller.app.settings
        let body = Components.Schemas.SettingsExchangeBody(
            passwordPolicy: settings.passwordPolicy,
            sharedDeviceSettings: settings.sharedDeviceSettings,
            blockWipingPolicy: settings.blockWipingPolicy,
            logSettings: settings.logSettings,
            consentSettings: settings.consentSettings,
            dataSettings: settings.dataSettings,
            changeSealingKey: keys.changeSealingPublicKey
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

    func uploadLogs(_ input: Operations.UploadLogs.Input) async throws -> Operations.UploadLogs.Output {
        let caller = try await authenticate(appID: input.path.appID, requiresRegistration: true)
        guard case .json(let body) = input.body else { throw APIError.badRequest("Send the body as JSON.") }
        let logSettings = caller.app.settings.logSettings
        guard logSettings?.logEnabled == true else {
            throw APIError(.conflict, .logUploadDisabled, "Log upload is turned off for this app.")
        }
        let limit = logSettings?.maxEntriesPerUpload ?? 1000
        guard body.entries.count <= limit else {
            // The document allows more; this app's settings do not, hence 409 and not 400.
            throw APIError(.conflict, .tooManyEntries, "This app takes at most \(limit) entries per upload.")
        }
        let time = now()
        var records: [LogRecord] = []
        for entry in body.entries {
            try Validation.length(entry.message, "message", APILimits.logMessage)
            if let source = entry.source { try Validation.text(source, "source", APILimits.logSource) }
            records.append(
                LogRecord(
                    appID: caller.app.id,
                    username: caller.session.username,
                    deviceID: caller.session.deviceID,
                    time: entry.time,
                    level: entry.level.rawValue,
                    // Kept with its control characters written out (`\u{1B}`), tab and
                    // newline aside: a device's text never reaches an admin's terminal as
                    // escape codes, and PostgreSQL text never holds a NUL.
                    message: TextRules.escapingControls(entry.message),
                    source: entry.source,
                    receivedAt: time
                )
            )
        }
        try await throttle.admitLogUpload(
            appID: caller.app.id,
            deviceID: caller.session.deviceID,
            username: caller.session.username
        )
        try await perform { try await storage.insertLogs(records, retention: .standard(now: time)) }
        try await noteContact(caller.device)
        return .accepted(.init(body: .json(.init(accepted: records.count))))
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

extension MobileServicesAPI {
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
}
