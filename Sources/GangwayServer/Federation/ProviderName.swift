import Foundation

/// How a page names an OpenID Connect provider to a person: its issuer without the
/// scheme (`login.example.com`, `sso.example.com/realms/crew`), so two people of one name
/// at two providers, or a provider's person and a password user, are told apart.
enum ProviderName {
    /// `issuer` as a page shows it.
    static func shown(_ issuer: String) -> String {
        guard let url = URL(string: issuer), let host = url.host, !host.isEmpty else { return issuer }
        let port = url.port.map { ":\($0)" } ?? ""
        let path = url.path == "/" ? "" : url.path
        return host + port + path
    }
}
