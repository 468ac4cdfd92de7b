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
        guard case .email(let address) = activation else { return nil }
        let configuration: AppConfiguration
        do {
            configuration = try await client.discover(email: address.trimmingCharacters(in: .whitespaces))
        } catch {
            switch error {
            case .notFound: throw .unknownEmailDomain
            case .refused where error.serverCode == ErrorCode.invalidEmail.rawValue: throw .invalidEmail
            case .refused: throw .malformed(error.serverMessage ?? "the address is not valid")
            default: throw .discoveryFailed(error)
            }
        }
        return try configuration.validated()
    }
}
