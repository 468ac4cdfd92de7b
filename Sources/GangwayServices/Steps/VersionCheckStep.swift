import Foundation
import GangwayFlows
import GangwayScreens
import Logging

/// Asks the server whether this version of the app may still be used. An inactive
/// version shows an error screen with the server's message ("try again" asks again, as
/// the administrator may reactivate it) and otherwise ends the flow with
/// ``ServiceFlowError/appVersionInactive``. On a restore an unreachable server does not
/// stop the user: offline work is the point. The answer also says how the app's people
/// sign in now; a change since the configuration was kept is kept too, so the sign-in
/// that follows is the one the admin set.
public struct VersionCheckStep: Step {
    public let services: MobileServices

    public init(services: MobileServices) {
        self.services = services
    }

    public func onboard(_ context: FlowContext) async throws -> FlowContext {
        try await check(context, offline: false)
    }

    public func restore(_ context: FlowContext) async throws -> FlowContext {
        try await check(context, offline: true)
    }

    public func resetPasscode(_ context: FlowContext) async throws -> FlowContext {
        try await check(context, offline: false)
    }

    private func check(_ context: FlowContext, offline allowed: Bool) async throws -> FlowContext {
        let (client, configuration) = try services.client(context)
        while true {
            let status: VersionStatus
            do {
                status = try await client.checkVersion(appID: configuration.appID, version: services.device.appVersion)
            } catch {
                if error == .unreachable && allowed {
                    services.logger.notice("version check skipped: the server cannot be reached")
                    return context
                }
                guard error.isTransient else { throw error }
                try await SignInPrompt(services: services).offerRetry(error, context: context)
                continue
            }
            var context = context
            if let authType = status.authType, authType != configuration.authType {
                // An admin changed how the app's people sign in since the configuration
                // was kept: the device follows, before anyone is asked to sign in.
                var changed = configuration
                changed.authType = authType
                try services.configurationStore.save(changed)
                context.info[.appConfiguration] = changed
                services.logger.notice("the app's sign-in changed on the server", metadata: ["authType": "\(authType)"])
            }
            if status.isActive { return context }
            services.logger.warning(
                "this app version is inactive",
                metadata: ["version": "\(services.device.appVersion)"]
            )
            let screen = ErrorScreen(
                message: status.message ?? StringTable.text("service.versionInactive"),
                advice: status.minimumVersion.map {
                    StringTable.text("service.updateTo", $0)
                }
                    ?? StringTable.text("service.update"),
                allowsRetry: true
            )
            guard try await context.presenter.present(screen) == .retry else {
                throw ServiceFlowError.appVersionInactive
            }
        }
    }
}
