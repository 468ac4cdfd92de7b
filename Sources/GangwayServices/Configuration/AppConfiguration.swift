import Foundation
import GangwayProtocol

/// What the device needs to onboard against an app: the server, the app's ID and name,
/// and how users authenticate. Discovery answers it; activation links and QR codes carry
/// it signed; a bundled or managed file holds it as JSON:
///
/// ```json
/// {"serverURL": "https://ms.airline.example", "appID": "checks",
///  "appName": "Ground checks", "authType": "basic"}
/// ```
public struct AppConfiguration: Sendable, Hashable, Codable {
    /// How users authenticate: the API's own type (`basic` or `oauth2`), so the device,
    /// the admin and the server name it alike.
    public typealias AuthType = Components.Schemas.AuthenticationType

    /// Where the mobile-services server answers.
    public var serverURL: URL
    /// The app's ID on the server.
    public var appID: String
    /// The app's name, for screens.
    public var appName: String
    /// How users authenticate.
    public var authType: AuthType

    public init(serverURL: URL, appID: String, appName: String, authType: AuthType = .basic) {
        self.serverURL = serverURL
        self.appID = appID
        self.appName = appName
        self.authType = authType
    }

    /// Reads a configuration from JSON and checks it.
    /// - Throws: ``ConfigurationError/malformed`` naming what is wrong.
    public static func decode(_ data: Data) throws(ConfigurationError) -> AppConfiguration {
        let configuration: AppConfiguration
        do {
            configuration = try JSONDecoder().decode(AppConfiguration.self, from: data)
        } catch let error as DecodingError {
            throw .malformed(Self.describe(error))
        } catch {
            throw .malformed("the configuration is not valid JSON")
        }
        return try configuration.validated()
    }

    /// The configuration, checked: an http(s) server URL with a host, and an app ID the
    /// server could have issued.
    public func validated() throws(ConfigurationError) -> AppConfiguration {
        do throws(WebURL.Problem) {
            _ = try WebURL.parse(serverURL.absoluteString)
        } catch {
            throw .malformed("serverURL \(error.reason)")
        }
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
        guard APILimits.identifier.contains(appID.unicodeScalars.count),
            appID.unicodeScalars.allSatisfy(allowed.contains),
            appID.first.map({ $0.isLetter || $0.isNumber }) == true
        else {
            throw .malformed("appID must be 1 to 64 letters, digits, dots, dashes or underscores")
        }
        return self
    }

    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, _): "\(key.stringValue) is missing"
        case .dataCorrupted(let context) where context.codingPath.isEmpty: "the configuration is not valid JSON"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            context.codingPath.last.map { "\($0.stringValue) has the wrong type or value" }
                ?? "the configuration is not a JSON object"
        @unknown default: "the configuration cannot be read"
        }
    }
}
