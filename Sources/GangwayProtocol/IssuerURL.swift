import Foundation

/// An OpenID Connect provider's issuer URL, as Gangway takes it (RFC 8414 §2; OpenID
/// Connect Discovery §4): `https`, a host of ASCII letters, digits, dots and hyphens, an
/// optional port and path, and no query, fragment or user information; `http` only on a
/// loopback host, for a provider on the same machine. The API document states the same
/// pattern for the admin's `issuer`, so the server, the document and its clients agree.
public enum IssuerURL {
    public static let pattern =
        #"^(https://[A-Za-z0-9.-]+|http://(127\.0\.0\.1|localhost|\[::1\]))(:(6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3}))?(/[A-Za-z0-9._~!$&'()*+,;=:@/-]*)?$"#

    /// Whether `text` is an issuer Gangway takes, kept as given: tokens are matched to
    /// it character for character.
    public static func isValid(_ text: String) -> Bool {
        guard text.utf8.count <= 2_048, let regex = try? Regex(pattern) else { return false }
        return text.wholeMatch(of: regex) != nil
    }

    /// Why an issuer is refused, for people.
    public static let rule =
        "issuer must be an https URL (http only on a loopback address), with no query, fragment or user information."

    /// `issuer` as a page names the provider to a person: without the scheme
    /// (`login.example.com`, `sso.example.com/realms/crew`), so two people of one name at
    /// two providers, or a provider's person and a password user, are told apart.
    public static func shown(_ issuer: String) -> String {
        guard let url = URL(string: issuer), let host = url.host, !host.isEmpty else { return issuer }
        let port = url.port.map { ":\($0)" } ?? ""
        let path = url.path == "/" ? "" : url.path
        return host + port + path
    }
}
