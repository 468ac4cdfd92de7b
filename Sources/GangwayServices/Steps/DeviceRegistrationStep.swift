import Foundation
import GangwayFlows
import GangwayProtocol
import Logging

/// Registers the device for the signed-in user (or refreshes the registration) and puts
/// the recovery key the server keeps for it into the context, so the store step can let a
/// passcode reset by the same user keep the data. When the app's admin turned that off,
/// the server sends no key and a reset erases the data.
///
/// The user's keys for offline work (``GangwayProtocol/OfflineKeys``) are made here at
/// their first registration on the device, kept with their credentials (so in their
/// store), and the signing key's public part is registered with the device.
public struct DeviceRegistrationStep: Step {
    public let services: MobileServices

    public init(services: MobileServices) {
        self.services = services
    }

    public func onboard(_ context: FlowContext) async throws -> FlowContext {
        try await register(context, keys: Self.offlineKeys(in: context))
    }

    /// The user's offline keys are in their store, which stays locked until the reset opens
    /// it: the registration keeps the key the server holds, so the changes the user left
    /// and the answers to them stay theirs. Only when the server sends no recovery key (the
    /// data cannot be kept, and a new store follows) are new keys made and registered.
    public func resetPasscode(_ context: FlowContext) async throws -> FlowContext {
        let registered = try await register(context, keys: Self.stagedKeys(in: context))
        guard registered.info[.deviceRegistration]?.recoveryKey == nil, try Self.stagedKeys(in: context) == nil
        else { return registered }
        return try await register(registered, keys: Self.offlineKeys(in: registered))
    }

    private func register(_ context: FlowContext, keys: OfflineKeys?) async throws -> FlowContext {
        let (client, configuration) = try services.client(context)
        guard let token = try context.info[.serverSession]?.token ?? context.credentials.sessionToken() else {
            throw ServiceError.notSignedIn
        }
        while true {
            let registration: DeviceRegistration
            do {
                registration = try await client.registerDevice(
                    appID: configuration.appID,
                    token: token,
                    device: services.device,
                    changeKey: keys?.signing.verifyingKey
                )
            } catch {
                guard error.isTransient else { throw error }
                try await SignInPrompt(services: services).offerRetry(error, context: context)
                continue
            }
            services.logger.info("device registered", metadata: ["registration": "\(registration.registrationID)"])
            try context.credentials.keep(registration)
            var context = context
            context.info[.recoveryKey] = registration.recoveryKey
            context.info[.deviceRegistration] = registration
            return context
        }
    }
}

extension DeviceRegistrationStep {
    /// The user's offline keys from their credentials, made and kept there when missing
    /// or unreadable.
    static func offlineKeys(in context: FlowContext) throws -> OfflineKeys {
        if let keys = try stagedKeys(in: context) { return keys }
        let keys = OfflineKeys()
        try context.credentials.put(keys.stored, forKey: OfflineKeys.storeKey)
        return keys
    }
}

extension DeviceRegistrationStep {
    /// The user's offline keys where the context's credentials hold them, readable.
    static func stagedKeys(in context: FlowContext) throws -> OfflineKeys? {
        guard let stored = try context.credentials.data(forKey: OfflineKeys.storeKey) else { return nil }
        return try? OfflineKeys(stored: stored)
    }
}

extension FlowInfoKey where Value == DeviceRegistration {
    /// The device registration the registration step made or refreshed.
    public static var deviceRegistration: Self { Self("gangway.deviceRegistration") }
}
