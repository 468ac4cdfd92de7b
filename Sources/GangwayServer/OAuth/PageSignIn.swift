import Foundation
import GangwayForms
import GangwayProtocol
import GangwayServerStorage
import HTTPTypes

/// A password typed into one of the server's pages (the code grant's sign-in page, the
/// device verification page), throttled as the sign-in API throttles a device: a browser
/// that signed in as that person before holds a device cookie, and is counted under it
/// alone and let through first while others flood the server, so a stranger's guesses
/// lock no one out of the browser they use (see ``SignInThrottle``).
extension SessionsHandler {
    /// The device cookie's name: with the `__Host-` prefix over HTTPS, so no other host
    /// of the domain can set it.
    var pageDeviceCookieName: String { services.isSecureOrigin ? "__Host-gangway_device" : "gangway_device" }

    /// The user whose right password the page's form holds (its `username`, in any case,
    /// and `password`), after the throttle let the attempt through; with the `Set-Cookie`
    /// value of a new device cookie when the browser did not present one of this user's.
    ///
    /// - Throws: What the page shows: a failed sign-in when something else stopped it.
    func pageSignIn(
        form: [String: String],
        headers: HTTPFields,
        appID: String
    ) async throws(APIError) -> (user: UserRecord, setCookie: String?) {
        let username = (form["username"] ?? "").lowercased()
        do {
            let presented = BrowserCookie.value(named: pageDeviceCookieName, in: headers)
            let cookieHash = try await knownDeviceCookie(presented, username: username)
            let user = try await checkedUser(
                username: username,
                password: form["password"] ?? "",
                cookieHash: cookieHash,
                appID: appID
            )
            guard cookieHash == nil else { return (user, nil) }
            let cookie = try await newDeviceCookie(for: user.username)
            return (
                user,
                BrowserCookie.setCookie(
                    name: pageDeviceCookieName,
                    value: cookie,
                    maxAge: Int(DeviceCookie.lifetime.seconds),
                    secure: services.isSecureOrigin
                )
            )
        } catch {
            throw (error as? APIError) ?? .signInFailed
        }
    }
}
