/// A native app's redirect URI, as Gangway registers and matches it (RFC 8252 §7): a
/// private-use scheme in reverse domain name form (`com.airline.checks:/oauth2redirect`),
/// a loopback address over `http` (`http://127.0.0.1/callback` or `http://[::1]/…`, not
/// `localhost`, §8.3), or a claimed `https` URL; always with a path, never a fragment,
/// query or user information. The API document states the same pattern, so the server,
/// the document and its clients agree.
///
/// Matching is exact, character for character, except the port of a loopback address,
/// which the app picks when it listens (§7.3): a registered `http://127.0.0.1/callback`
/// matches `http://127.0.0.1:49152/callback`.
public enum RedirectURI {
    public static let pattern =
        #"^(https://[A-Za-z0-9.-]+(:(6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3}))?|http://(127\.0\.0\.1|\[::1\])(:(6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3}))?|[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+:)/[A-Za-z0-9._~!$&'()*+,;=:@/-]*$"#

    /// The most an app registers.
    public static let limit = 10

    /// Whether `text` is a redirect URI Gangway registers.
    public static func isValid(_ text: String) -> Bool {
        guard text.utf8.count <= 512, let regex = try? Regex(pattern) else { return false }
        return text.wholeMatch(of: regex) != nil
    }

    /// Whether `presented` is the redirect URI `registered`: the same text, or for a
    /// loopback address the same text once the ports are set aside.
    public static func matches(registered: String, presented: String) -> Bool {
        guard isValid(presented) else { return false }
        if registered == presented { return true }
        guard let loopback = withoutPort(registered), let other = withoutPort(presented) else { return false }
        return loopback == other
    }

    /// A loopback redirect URI without its port; `nil` for any other.
    public static func withoutPort(_ uri: String) -> String? {
        for host in ["http://127.0.0.1", "http://[::1]"] where uri.hasPrefix(host) {
            let rest = uri.dropFirst(host.count)
            guard rest.first == ":" else { return String(uri) }
            guard let slash = rest.firstIndex(of: "/") else { return nil }
            return host + rest[slash...]
        }
        return nil
    }

    /// Why a redirect URI is refused, for people.
    public static let rule =
        "a redirect URI must be a private-use scheme with a dot (com.example.app:/path), http on 127.0.0.1 or [::1], "
        + "or https, with a path and no query, fragment or user information."
}
