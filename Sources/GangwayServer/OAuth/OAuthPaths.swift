import Foundation
import Hummingbird

/// Where an app's authorization server lives, written once: its endpoints and pages under
/// `/apps/{appID}/oauth/`, which answer errors as OAuth does and take form bodies.
enum OAuthPaths {
    /// `/apps/{appID}/oauth/…`.
    static func isOAuth(_ path: String) -> Bool {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        return parts.count == 5 && parts[0].isEmpty && parts[1] == "apps" && parts[3] == "oauth"
    }

    static func takesForms(_ path: String) -> Bool { isOAuth(path) }

    /// The HTML pages, not part of the API document: the verification page of the device
    /// authorization grant, the sign-in page of the authorization code grant, and where
    /// an app's OpenID Connect provider sends the browser back to (and its consent form).
    /// Each answers `GET` (the page) and `POST` (the person's answer).
    enum Page: String, CaseIterable {
        case device
        case authorize
        case callback

        /// The path as the API document writes paths.
        var template: String { "/apps/{appID}/oauth/\(rawValue)" }

        /// The path of `appID`'s page.
        func path(appID: String) -> String { "/apps/\(appID)/oauth/\(rawValue)" }

        /// Routes the page: `show` answers `GET`, `answer` answers `POST`.
        func register(
            on router: Router<ServerContext>,
            show: @escaping @Sendable (Request, ServerContext) async -> Response,
            answer: @escaping @Sendable (Request, ServerContext) async -> Response
        ) {
            let path = RouterPath(template.replacingOccurrences(of: "{appID}", with: ":appID"))
            router.get(path) { request, context in await show(request, context) }
            router.post(path) { request, context in await answer(request, context) }
        }
    }

    /// The pages, by the document's form of their paths, with their methods.
    static let pages = Dictionary(uniqueKeysWithValues: Page.allCases.map { ($0.template, ["get", "post"]) })

    /// The endpoints an app's issuer (`PUBLIC_URL/apps/{appID}`) serves, as its metadata
    /// names them.
    struct Endpoints {
        let issuer: String

        var token: String { issuer + "/oauth/token" }
        var deviceAuthorization: String { issuer + "/oauth/device_authorization" }
        var revocation: String { issuer + "/oauth/revoke" }
        var authorization: String { issuer + "/oauth/" + Page.authorize.rawValue }
        var verification: String { issuer + "/oauth/" + Page.device.rawValue }
        var userinfo: String { issuer + "/oauth/userinfo" }
        var jwks: String { issuer + "/oauth/jwks" }
    }
}
