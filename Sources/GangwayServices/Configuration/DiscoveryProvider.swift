import Foundation
import GangwayProtocol
import GangwayScreens
import OpenAPIRuntime

/// Finds the app for a work email address through the discovery service.
public struct DiscoveryProvider: ConfigurationProvider {
    public var source: ConfigurationSource { .discovery }
    public var activationMethod: WelcomeScreen.ActivationMethod? { .email }
    /// The discovery service's client.
    public let client: MobileServicesClient

    public init(discoveryURL: URL, transport: (any ClientTransport)? = nil) {
        client = MobileServicesClient(serverURL: discoveryURL, transport: transport)
    }

    public func configuration(
        for activation: WelcomeScreen.Activation
    ) async throws(ConfigurationError) -> AppConfiguration? {
        guard case .email(let typed) = activation else { return nil }
        let address = typed.trimmingCharacters(in: .whitespaces)
        // An address no server takes is the person's typo, said before any network call.
        guard APILimits.email.contains(address.count) else { throw .invalidEmail }
        let configuration: AppConfiguration
        do {
            configuration = try await client.discover(email: address)
        } catch {
            switch error {
            case .notFound: throw .unknownEmailDomain
            // The address is all the request holds: a refusal of it (no `@`, a domain
            // that is no domain name) is the person's typo, not the app's configuration.
            case .refused: throw .invalidEmail
            default: throw .discoveryFailed(error)
            }
        }
        return try configuration.validated()
    }
}
