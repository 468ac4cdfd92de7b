import Foundation
import GangwayFlows
import GangwayScreens

/// Where an app configuration came from.
public enum ConfigurationSource: String, Sendable, Hashable, Codable, CaseIterable {
    /// A file the app ships.
    case bundled
    /// A file a device-management system put on the device.
    case managed
    /// A signed activation link.
    case activationLink
    /// A signed QR code, as text or as an image.
    case qrCode
    /// The discovery service, asked with a work email address.
    case discovery
}

/// One way for the app to learn its configuration. Providers that need nothing from the
/// user (a bundled or managed file) answer ``configuration()``; those that need the user's
/// input (a link, a QR code, an email address) name the welcome screen's
/// ``activationMethod`` and answer ``configuration(for:)``.
public protocol ConfigurationProvider: Sendable {
    /// What the provider reads.
    var source: ConfigurationSource { get }
    /// The welcome screen's activation method this provider answers, if it needs input.
    var activationMethod: WelcomeScreen.ActivationMethod? { get }
    /// The configuration found without asking the user, or `nil`.
    func configuration() async throws(ConfigurationError) -> AppConfiguration?
    /// The configuration from what the user gave, or `nil` when it is not for this provider.
    func configuration(for activation: WelcomeScreen.Activation) async throws(ConfigurationError) -> AppConfiguration?
}

extension ConfigurationProvider {
    public var activationMethod: WelcomeScreen.ActivationMethod? { nil }
    public func configuration() async throws(ConfigurationError) -> AppConfiguration? { nil }
    public func configuration(
        for activation: WelcomeScreen.Activation
    ) async throws(ConfigurationError) -> AppConfiguration? { nil }
}

extension FlowInfoKey where Value == AppConfiguration {
    /// The app configuration the welcome step found.
    public static var appConfiguration: Self { Self("gangway.appConfiguration") }
}
