/// Which paths belong to an app's authorization server: its endpoints answer errors as
/// OAuth does, and they and its pages take form bodies.
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
    static let pages: [String: [String]] = [
        "/apps/{appID}/oauth/device": ["get", "post"],
        "/apps/{appID}/oauth/authorize": ["get", "post"],
        "/apps/{appID}/oauth/callback": ["get", "post"],
    ]
}
