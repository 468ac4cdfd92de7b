import Foundation

/// The characters RFC 3986 (2.3) leaves unreserved, `A`–`Z`, `a`–`z`, `0`–`9`, `-`, `.`,
/// `_` and `~`, and text percent-encoded around them: one set for the PKCE verifier's
/// rule, a form's or a query's values, and the sync call's path and query on both sides.
package enum PercentEncoding {
    package static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
    )

    /// `text` with every character but the unreserved ones percent-encoded (as UTF-8).
    package static func encoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    /// Whether `text` holds unreserved characters alone.
    package static func isUnreserved(_ text: some StringProtocol) -> Bool {
        text.unicodeScalars.allSatisfy(unreserved.contains)
    }
}
