public import Crypto
import Foundation
import GangwayProtocol
public import HTTPTypes

/// Anti-forgery for the server's HTML forms (the device verification page, the sign-in
/// page of the code grant, the consent pages): a form is taken only when it was sent
/// from one of the server's own pages, in the browser that page was shown in.
///
/// Two checks, each enough against a page on another site (OWASP's cross-site request
/// forgery prevention: a signed double-submit token, and the Fetch Metadata and Origin
/// headers):
///
/// - **The browser's token.** A page with a form gives the browser a random secret in a
///   cookie (`HttpOnly`, `SameSite=Lax`, so a cross-site POST does not carry it) and puts
///   an HMAC of it, under a key derived from the server key and bound to the app, in a
///   hidden field. A POST without both, or with a field that is not the cookie's HMAC,
///   is refused. Another site can neither read the field nor compute it.
/// - **Where the browser says the form came from.** `Sec-Fetch-Site` other than
///   `same-origin` (or `none`, a person's own action) is refused, and so is an `Origin`
///   that is neither the server's public origin nor the request's own host (`null`
///   passes only with `Sec-Fetch-Site: same-origin`).
public struct FormGuard: Sendable {
    /// The hidden field the token travels in.
    public static let fieldName = "form_token"

    /// The key a token is an HMAC under: the server's, derived for form tokens.
    let key: SymmetricKey
    /// The server's public URL, for the origin a form must come from and whether cookies
    /// are `Secure`.
    let publicURL: String

    /// - Parameters:
    ///   - key: The server's key for form tokens (derived from its key for this use only).
    ///   - publicURL: The URL the server's pages are reached at.
    public init(key: SymmetricKey, publicURL: String) {
        self.key = key
        self.publicURL = publicURL
    }

    /// The browser's form secret: the one its cookie holds, or a new one the answer must
    /// set (``setCookie(_:)``).
    public struct Browser: Sendable {
        public let secret: String
        public let isNew: Bool
    }

    /// Why a form was refused. New cases may be added.
    public enum Refusal: Sendable, Hashable {
        /// The browser says the form came from another site.
        case crossSite
        /// The token is missing, or is not this browser's for this app.
        case badToken
    }

    public var isSecure: Bool { publicURL.hasPrefix("https://") }

    /// The cookie's name: with the `__Host-` prefix over HTTPS, so no other host of the
    /// domain can set it.
    public var cookieName: String { isSecure ? "__Host-gangway_form" : "gangway_form" }

    /// The secret of the browser that sent `headers`, or a new one.
    public func browser(_ headers: HTTPFields) -> Browser {
        if let secret = BrowserCookie.value(named: cookieName, in: headers), Self.isWellFormed(secret) {
            return Browser(secret: secret, isNew: false)
        }
        return newBrowser()
    }

    /// A new secret for a browser, whatever it holds: given at a sign-in and a sign-out.
    public func newBrowser() -> Browser {
        Browser(secret: SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }.base64URLEncoded, isNew: true)
    }

    /// The hidden field's value for `browser` on `appID`'s pages.
    public func token(for browser: Browser, appID: String) -> String {
        token(secret: browser.secret, appID: appID)
    }

    /// The `Set-Cookie` value that gives the browser its secret.
    public func setCookie(_ browser: Browser) -> String {
        BrowserCookie.setCookie(name: cookieName, value: browser.secret, secure: isSecure)
    }

    /// Why the form in `fields`, sent with `request`, must be refused; `nil` when it came
    /// from the server's own page in this browser.
    public func refusal(_ request: HTTPRequest, fields: [String: String], appID: String) -> Refusal? {
        let headers = request.headerFields
        let site = headers[.secFetchSite]?.lowercased()
        if let site, site != "same-origin", site != "none" { return .crossSite }
        if let origin = headers[.origin] {
            // `null` is what a browser sends from a page whose policy is `no-referrer` (as
            // the server's own are) or from a sandboxed frame: believed only when the
            // browser's `Sec-Fetch-Site` says it came from this origin.
            if origin == "null" ? site == nil : !isOwnOrigin(origin, authority: request.authority) {
                return .crossSite
            }
        }
        guard let secret = BrowserCookie.value(named: cookieName, in: headers), Self.isWellFormed(secret),
            let sent = fields[Self.fieldName],
            Self.equalInConstantTime(Data(sent.utf8), Data(token(secret: secret, appID: appID).utf8))
        else { return .badToken }
        return nil
    }

    private func token(secret: String, appID: String) -> String {
        Data(HMAC<SHA256>.authenticationCode(for: Data("\(appID)\n\(secret)".utf8), using: key)).base64URLEncoded
    }

    /// Whether `origin` is the server's public origin or the origin of the host the
    /// request was sent to (a server reached by another name than its public URL).
    private func isOwnOrigin(_ origin: String, authority: String?) -> Bool {
        let origin = origin.lowercased()
        if let own = WebURL.origin(of: publicURL)?.lowercased(), origin == own { return true }
        guard let host = authority?.lowercased(), let components = URLComponents(string: origin),
            let scheme = components.scheme, ["http", "https"].contains(scheme), components.path.isEmpty
        else { return false }
        return origin == "\(scheme)://\(host)"
    }

    private static func isWellFormed(_ secret: String) -> Bool {
        secret.utf8.count == 43 && Data(base64URLEncoded: secret)?.count == 32
    }

    private static func equalInConstantTime(_ left: Data, _ right: Data) -> Bool {
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for (a, b) in zip(left, right) { difference |= a ^ b }
        return difference == 0
    }
}

extension HTTPField.Name {
    public static let secFetchSite = HTTPField.Name("sec-fetch-site")!
}
