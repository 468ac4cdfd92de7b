import Foundation
import GangwayFlows
import GangwayScreens
import GangwayStore
import Logging

/// Downloads the settings exchange and acts on what the server says about the device.
///
/// It puts the passcode requirement into the context (a changed policy on restore then
/// reaches ``GangwayFlows/PasscodePolicyApplyStep``) and keeps the other settings, with
/// the time of contact, in the user's secure store (``ServiceAccount`` reads them).
///
/// On restore, after the store step opened the store:
/// - An expired session or a registration an administrator locked (`TRAFFIC_REG_LOCKED`):
///   the same server user signs in again (after an `oauth2` app's refresh token could not
///   renew the session), then the download is repeated.
/// - A wiped registration (`TRAFFIC_REG_WIPED`): the flow ends with
///   ``ServiceError/registrationWiped``, and the session manager erases the user's data
///   and starts onboarding.
/// - Past the app's wipe period without contact (counted from the last answer, with the
///   periods the server last sent), the user's data is erased
///   (``ServiceFlowError/outOfContact``) before anything else; past its lock period the
///   user must sign in again, which needs the server.
/// - No server otherwise: the user works offline with the settings kept.
///
/// In the background (the app was just locked) it exchanges the settings quietly; nothing
/// is shown and nothing is asked:
/// - A new policy waits for the next unlock (``GangwayFlows/PasscodePolicyApplyStep``).
/// - A wiped registration, or no answer past the wipe period, ends the flow with
///   ``ServiceError/registrationWiped`` or ``ServiceFlowError/outOfContact``: the session
///   manager erases the user's data at once.
/// - An expired session, a locked registration, a blocked user, or no answer past the
///   lock period, end the flow with that ``ServiceError`` or
///   ``ServiceFlowError/contactOverdue``: the session manager closes the session, and the
///   next open restores it with a sign-in (or says why it cannot).
/// - No answer within the periods leaves the context as it was.
public struct SettingsDownloadStep: Step {
    public let services: MobileServices

    public init(services: MobileServices) {
        self.services = services
    }

    public func onboard(_ context: FlowContext) async throws -> FlowContext {
        try await downloadSignedIn(context)
    }

    public func resetPasscode(_ context: FlowContext) async throws -> FlowContext {
        try await downloadSignedIn(context)
    }

    /// Right after a sign-in: the server must answer.
    private func downloadSignedIn(_ context: FlowContext) async throws -> FlowContext {
        let (client, configuration) = try services.client(context)
        guard let token = context.info[.serverSession]?.token else { throw ServiceError.notSignedIn }
        while true {
            let settings: ServerSettings
            do {
                settings = try await client.settings(appID: configuration.appID, token: token)
            } catch {
                guard error.isTransient else { throw error }
                try await SignInPrompt(services: services).offerRetry(error, context: context)
                continue
            }
            return try adopt(settings, into: context)
        }
    }

    public func restore(_ context: FlowContext) async throws -> FlowContext {
        let (client, configuration) = try services.client(context)
        var context = context
        context.info[.settingsExchanged] = nil
        let user = try context.credentials.serverUser()
        var token = try context.credentials.sessionToken()
        var reason: String?
        switch try overdueContact(context) {
        case .wipe: throw ServiceFlowError.outOfContact
        case .lock: reason = StringTable.text("service.contactOverdue") + " " + StringTable.text("service.signInAgain")
        case nil: if token == nil { reason = StringTable.text("service.signedOut") }
        }
        var signedInAgain = false
        while true {
            if let why = reason {
                let session = try await services.signIn(context, message: why, expectedUser: user)
                try context.credentials.keep(session)
                context.info[.serverSession] = session
                context.info[.serverUser] = session.user
                token = session.token
                reason = nil
                signedInAgain = true
            }
            guard let token else { throw ServiceError.notSignedIn }
            let settings: ServerSettings
            do {
                // An ended session of an oauth2 app is renewed with its refresh token first.
                settings = try await services.withSession(context, asking: false) { client, configuration, token in
                    try await client.settings(appID: configuration.appID, token: token)
                }
            } catch let error as ServiceError {
                switch error {
                case .sessionExpired, .registrationLocked:
                    services.logger.notice(
                        "the server asks the user to sign in again",
                        metadata: ["reason": "\(error)"]
                    )
                    try context.credentials.removeValue(forKey: ServiceCredentials.token)
                    reason = "\(error.summary) \(error.advice)"
                    continue
                case .registrationWiped:
                    services.logger.warning("the server wiped this device's registration")
                    throw error
                case _ where error.isTransient || error == .invalidResponse:
                    services.logger.notice("settings not downloaded; working offline", metadata: ["reason": "\(error)"])
                    context.info[.serverUser] = user
                    return context
                default:
                    throw error
                }
            }
            if signedInAgain {
                await refreshRecoveryKey(client: client, appID: configuration.appID, token: token, context: context)
            }
            return try adopt(settings, into: context)
        }
    }

    /// After the user signed in again with their store open, and the server answered as
    /// for a registration neither locked nor wiped: wraps the store under the
    /// registration's current recovery secret, which the server replaces when the
    /// password changes or the user is blocked, so a later passcode reset keeps the data
    /// (or removes the slot when the app turned that off). Without an answer the old
    /// wrapping stays, and the next sign-in tries again.
    private func refreshRecoveryKey(
        client: MobileServicesClient,
        appID: String,
        token: SessionToken,
        context: FlowContext
    ) async {
        guard let store = context.secureStore else { return }
        do {
            let registration = try await client.registerDevice(appID: appID, token: token, device: services.device)
            if let key = registration.recoveryKey {
                try store.setRecoveryKey(key.secret)
            } else {
                try store.removeRecoveryKey()
            }
        } catch {
            services.logger.notice("the recovery key was not refreshed", metadata: ["reason": "\(error)"])
        }
    }

    public func background(_ context: FlowContext) async throws -> FlowContext {
        var context = context
        context.info[.settingsExchanged] = nil
        guard (try? services.client(context)) != nil, (try? context.credentials.sessionToken()) != nil else {
            return context
        }
        let settings: ServerSettings
        do {
            // Nothing is asked in the background; an oauth2 app's refresh token may still
            // renew an ended session.
            settings = try await services.withSession(context, asking: false) { client, configuration, token in
                try await client.settings(appID: configuration.appID, token: token)
            }
        } catch let error as ServiceError {
            if error == .registrationWiped || error.endsSession {
                services.logger.warning(
                    "the server refused the session in the background",
                    metadata: ["reason": "\(error)"]
                )
                throw error
            }
            services.logger.notice("settings not exchanged in the background", metadata: ["reason": "\(error)"])
            // No answer: the periods without contact count as at a launch.
            switch try overdueContact(context) {
            case .wipe: throw ServiceFlowError.outOfContact
            case .lock: throw ServiceFlowError.contactOverdue
            case nil: return context
            }
        }
        return try adopt(settings, into: context)
    }

    private enum Overdue { case lock, wipe }

    /// Whether the time since the last contact passed the kept settings' periods.
    private func overdueContact(_ context: FlowContext) throws -> Overdue? {
        guard let settings = try context.credentials.serverSettings(),
            let last = try context.credentials.lastContact()
        else { return nil }
        let days = services.now().timeIntervalSince(last) / 86_400
        if let limit = settings.wipeAfterDaysWithoutContact, days >= Double(limit) {
            services.logger.warning("out of contact past the wipe period", metadata: ["days": "\(Int(days))"])
            return .wipe
        }
        if let limit = settings.lockAfterDaysWithoutContact, days >= Double(limit) {
            services.logger.notice("out of contact past the lock period", metadata: ["days": "\(Int(days))"])
            return .lock
        }
        return nil
    }

    private func adopt(_ settings: ServerSettings, into context: FlowContext) throws -> FlowContext {
        var context = context
        // The requirement travels in the context once, for the store and policy steps;
        // the rest of the settings is read from the kept copy.
        if let requirement = settings.passcodeRequirement { context.info[.passcodeRequirement] = requirement }
        context.info[.agreementVersions] = AgreementVersions(
            eula: settings.eulaVersion,
            consent: settings.consentVersion
        )
        context.info[.settingsExchanged] = true
        try context.credentials.keep(settings, contactAt: services.now())
        return context
    }
}

extension FlowInfoKey where Value == Bool {
    /// Set when this flow exchanged the settings with the server: a server contact, that
    /// steps after it (``LogUploadStep``) may use without trying the network in vain.
    public static var settingsExchanged: Self { Self("gangway.settingsExchanged") }
}
