import Foundation
public import HTTPTypes

/// Cookies of the server's HTML pages: read from a request, and set so that no script
/// reads them and no other site's form sends them.
public enum BrowserCookie {
    /// The value of the cookie `name` in `headers`' `Cookie` fields; the first one.
    public static func value(named name: String, in headers: HTTPFields) -> String? {
        for field in headers[values: .cookie] {
            for pair in field.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name {
                    return String(parts[1]).trimmingCharacters(in: .whitespaces)
                }
            }
        }
        return nil
    }

    /// A `Set-Cookie` value: `HttpOnly`, `SameSite=Lax` (sent on a top-level link from
    /// elsewhere, never with another site's POST) or `Strict` (never sent from elsewhere),
    /// `Secure` over HTTPS; for the browser's session when `maxAge` is `nil`.
    public static func setCookie(
        name: String,
        value: String,
        path: String = "/",
        maxAge: Int? = nil,
        strict: Bool = false,
        secure: Bool
    ) -> String {
        "\(name)=\(value); Path=\(path)" + (maxAge.map { "; Max-Age=\($0)" } ?? "") + "; HttpOnly; SameSite="
            + (strict ? "Strict" : "Lax") + (secure ? "; Secure" : "")
    }
}
