import Foundation
import GangwayScreens

/// Tries configuration providers in a stated order.
///
/// The providers that need no input go first, in the order given; the first that has a
/// configuration wins and the welcome screen only asks the user to sign in. When none
/// has one, the welcome screen offers the activation methods of the others, in their
/// order, and the user's choice goes to the provider that answers it. The default order
/// is ``standardOrder``.
public struct ConfigurationLoader: Sendable {
    /// The providers, in order.
    public let providers: [any ConfigurationProvider]

    public init(_ providers: [any ConfigurationProvider]) {
        self.providers = providers
    }

    /// Managed (what the device's administrator pushed) before bundled (the default the
    /// app was built with), then activation link, QR code and discovery.
    public static let standardOrder: [ConfigurationSource] = [.managed, .bundled, .activationLink, .qrCode, .discovery]

    /// A loader with the providers sorted into ``standardOrder``.
    public static func standard(_ providers: [any ConfigurationProvider]) -> Self {
        Self(
            providers.sorted {
                (standardOrder.firstIndex(of: $0.source) ?? .max) < (standardOrder.firstIndex(of: $1.source) ?? .max)
            }
        )
    }

    /// The configuration a provider has without asking the user, and its source.
    public func automatic() async throws(ConfigurationError) -> (AppConfiguration, ConfigurationSource)? {
        for provider in providers {
            if let configuration = try await provider.configuration() { return (configuration, provider.source) }
        }
        return nil
    }

    /// The activation methods to offer, in provider order, each once.
    public var activationMethods: [WelcomeScreen.ActivationMethod] {
        var methods: [WelcomeScreen.ActivationMethod] = []
        for method in providers.compactMap(\.activationMethod) where !methods.contains(method) {
            methods.append(method)
        }
        return methods
    }

    /// The configuration for what the user gave on the welcome screen.
    /// - Throws: ``ConfigurationError/unsupported`` when no provider answers it, or the
    ///   provider's error.
    public func configuration(
        for activation: WelcomeScreen.Activation
    ) async throws(ConfigurationError) -> (AppConfiguration, ConfigurationSource) {
        for provider in providers where provider.activationMethod == activation.method {
            if let configuration = try await provider.configuration(for: activation) {
                return (configuration, provider.source)
            }
        }
        throw .unsupported
    }
}
