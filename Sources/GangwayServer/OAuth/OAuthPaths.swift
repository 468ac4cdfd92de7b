/// Which paths belong to an app's authorization server: its endpoints answer errors as
/// OAuth does, and they and its pages take form bodies.
enum OAuthPaths {
    /// `/apps/{appID}/oauth/…`.
    static func isOAuth(_ path: String) -> Bool {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        return parts.count == 5 && parts[0].isEmpty && parts[1] == "apps" && parts[3] == "oauth"
    }

    static func takesForms(_ path: String) -> Bool { isOAuth(path) }

    /// The verification page of the device authorization grant, which is HTML, not part
    /// of the API document.
    static let verificationPage = "/apps/{appID}/oauth/device"
}
