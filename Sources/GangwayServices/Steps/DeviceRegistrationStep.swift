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
    /// and the answers to them stay theirs. A store that comes back without keys (a new,
    /// empty one) gets them after the store step (``keysAfterReset``).
    public func resetPasscode(_ context: FlowContext) async throws -> FlowContext {
        try await register(context, keys: Self.stagedKeys(in: context))
    }

    /// The step after a passcode reset's store step: when the user's store holds no
    /// offline keys (the data could not be kept), new ones are made, kept there and
    /// registered with the device.
    public var keysAfterReset: some Step { KeysAfterReset(registration: self) }

    private struct KeysAfterReset: Step {
        let registration: DeviceRegistrationStep

        func onboard(_ context: FlowContext) async throws -> FlowContext { context }

        func resetPasscode(_ context: FlowContext) async throws -> FlowContext {
            guard try DeviceRegistrationStep.stagedKeys(in: context) == nil else { return context }
            return try await registration.register(context, keys: DeviceRegistrationStep.offlineKeys(in: context))
        }
    }

    fileprivate func register(_ context: FlowContext, keys: OfflineKeys?) async throws -> FlowContext {
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
        try context.credentials.offlineKeys()
    }
}

extension FlowInfoKey where Value == DeviceRegistration {
    /// The device registration the registration step made or refreshed.
    public static var deviceRegistration: Self { Self("gangway.deviceRegistration") }
}
