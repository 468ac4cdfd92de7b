import Foundation

/// The browser seam of the authorization code grant: shows the server's sign-in page to
/// the person and brings back where the server sent the browser afterwards (the app's
/// redirect URI with the code, or with an error).
///
/// Gangway ships one: ``LoopbackBrowser``, which opens or prints the address and catches
/// the redirect on a loopback port (RFC 8252 §7.3). On Apple platforms an app supplies its
/// own, typically over `ASWebAuthenticationSession` with the app's private-use scheme as
/// its redirect URI; Gangway ships no such adapter yet (it cannot be built or tested on
/// the Linux machines Gangway is built on).
public protocol AuthorizationBrowser: Sendable {
    /// Shows the sign-in page `page(redirectURI)` builds for this browser's redirect URI,
    /// and waits for the server to send the browser back.
    /// - Throws: When the person closed the browser, or nobody came back in time.
    func authorize(_ page: @escaping @Sendable (_ redirectURI: String) -> URL) async throws -> AuthorizationCallback
}

/// Where the server sent the browser after the sign-in page.
public struct AuthorizationCallback: Sendable, Hashable {
    /// The redirect URI the page was built for: the token request must name it again.
    public var redirectURI: String
    /// The address the browser came back to, with `code`, `state` and `iss`, or `error`.
    public var url: URL

    public init(redirectURI: String, url: URL) {
        self.redirectURI = redirectURI
        self.url = url
    }

    /// The value of the query parameter `name`.
    public func parameter(_ name: String) -> String? {
        URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == name }?.value
    }
}
