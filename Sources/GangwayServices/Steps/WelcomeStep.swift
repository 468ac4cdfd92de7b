import Foundation
import GangwayFlows
import GangwayScreens
import Logging

/// The first step: finds the app's configuration and shows the welcome screen.
///
/// Onboarding: a configuration saved by an earlier activation, or one a provider has
/// without asking (managed, bundled), shows the configured welcome screen (sign in);
/// otherwise the screen offers the loader's activation methods, and what the user gives
/// goes to the provider that answers it. A failure shows an error screen, then the
/// welcome screen again. Demo mode ends the flow with ``ServiceFlowError/demoModeChosen``.
/// The configuration is saved for later launches and the device's other users. When the
/// app links legal texts, the screen goes on only with their box ticked, and the
/// acceptance (which texts, which versions, when) is recorded in the user's store as a
/// ``GangwayFlows/TermsAcceptance``.
///
/// Restore and passcode reset read the saved configuration.
public struct WelcomeStep: Step {
    public let services: MobileServices

    public init(services: MobileServices) {
        self.services = services
    }

    public func onboard(_ context: FlowContext) async throws -> FlowContext {
        var known = try services.configurationStore.load().map { ($0, "saved") }
        if known == nil {
            do {
                if let (found, source) = try await services.loader.automatic() { known = (found, source.rawValue) }
            } catch {
                // A configuration the app was given and cannot believe (a launch link whose
                // signature does not verify, a broken managed file) is said, and the person
                // activates another way.
                services.logger.warning("the given configuration was refused", metadata: ["reason": "\(error)"])
                let failure = ErrorScreen(message: error.summary, advice: error.advice, allowsRetry: false)
                _ = try await context.presenter.present(failure)
            }
        }
        while true {
            let screen = WelcomeScreen(
                configuration: known == nil ? .notConfigured(services.loader.activationMethods) : .configured,
                offersDemoMode: services.welcome.offersDemoMode,
                termsLinks: services.welcome.termsLinks,
                topImage: services.welcome.topImage,
                bottomImage: services.welcome.bottomImage,
                strings: services.welcome.strings
            )
            let configuration: AppConfiguration
            let source: String
            switch try await context.presenter.present(screen) {
            case .demoMode:
                services.logger.info("demo mode chosen")
                throw ServiceFlowError.demoModeChosen
            case .signIn:
                guard let known else { continue }
                (configuration, source) = known
            case .activate(let activation):
                do {
                    let (found, from) = try await services.loader.configuration(for: activation)
                    (configuration, source) = (found, from.rawValue)
                } catch {
                    services.logger.notice("activation failed", metadata: ["reason": "\(error)"])
                    let failure = ErrorScreen(message: error.summary, advice: error.advice)
                    guard try await context.presenter.present(failure) == .retry else {
                        throw ServiceFlowError.cancelled
                    }
                    continue
                }
            }
            try services.configurationStore.save(configuration)
            services.logger.info("app configured", metadata: ["source": "\(source)", "app": "\(configuration.appID)"])
            if !screen.termsLinks.isEmpty {
                // The screen finished only with the box ticked: record what was accepted.
                try TermsAcceptance(documents: screen.termsLinks, acceptedAt: services.now()).save(
                    to: context.credentials
                )
                services.logger.info(
                    "terms accepted",
                    metadata: ["documents": "\(screen.termsLinks.map { "\($0.title) \($0.version)" })"]
                )
            }
            var context = context
            context.info[.appConfiguration] = configuration
            return context
        }
    }

    public func restore(_ context: FlowContext) async throws -> FlowContext {
        try loadSaved(context)
    }

    public func resetPasscode(_ context: FlowContext) async throws -> FlowContext {
        try loadSaved(context)
    }

    private func loadSaved(_ context: FlowContext) throws -> FlowContext {
        guard let configuration = try services.configurationStore.load() else { throw ServiceFlowError.notConfigured }
        var context = context
        context.info[.appConfiguration] = configuration
        return context
    }
}
