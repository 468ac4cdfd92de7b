import Foundation
import GangwayForms
import GangwayProtocol
import GangwayServerStorage

/// An authorization request of the code grant (RFC 6749 §4.1.1), as the sign-in page
/// takes it from its query and carries it in its form: checked in the order RFC 6749
/// §4.1.2.1 asks, so a request whose client or redirect URI is wrong is never sent
/// anywhere, and any other fault goes back to the app's redirect URI.
struct AuthorizationRequest: Sendable, Hashable, Codable {
    /// The registered redirect URI the request named (any port, for a loopback one).
    var redirectURI: String
    /// Given back with the code, as it came; the app checks it (CSRF, RFC 6749 §10.12).
    var state: String?
    /// BASE64URL(SHA-256(code_verifier)): PKCE with S256 only (RFC 7636, RFC 9700 §2.1.1).
    var codeChallenge: String
    /// OpenID Connect's nonce, for the ID token.
    var nonce: String?
    /// The device whose session the code opens (Gangway's extension, as for the device
    /// grant); one is made when left out.
    var deviceID: String

    /// Why a request is refused.
    enum Refusal: Error, Sendable, Hashable {
        /// The client or the redirect URI is wrong: said on the page, sent nowhere.
        case page(String)
        /// Anything else: an OAuth error sent back to the redirect URI.
        case redirect(to: String, error: String, description: String, state: String?)
    }

    /// The request in `fields` (a query or a form), for `app`.
    static func parse(_ fields: [String: String], app: AppRecord) -> Result<Self, Refusal> {
        guard fields["client_id"] == app.id else {
            return .failure(.page("This sign-in link names no app of this server. Start again from the app."))
        }
        guard let uri = fields["redirect_uri"],
            app.authentication.redirectURIs.contains(where: { RedirectURI.matches(registered: $0, presented: uri) })
        else {
            return .failure(
                .page("This sign-in link does not say where to return to the app. Start again from the app.")
            )
        }
        // A state past the rule is not sent back: the refusal goes without it.
        let given = fields["state"]
        let state = given.flatMap { $0.utf8.count > 512 || $0.contains(where: \.isNewline) ? nil : $0 }
        func refuse(_ error: String, _ description: String) -> Result<Self, Refusal> {
            .failure(.redirect(to: uri, error: error, description: description, state: state))
        }
        if given != nil, state == nil {
            return refuse("invalid_request", "state is longer than 512 bytes or holds a line break.")
        }
        guard fields["response_type"] == "code" else {
            return refuse("unsupported_response_type", "The response type is code.")
        }
        guard let challenge = fields["code_challenge"], !challenge.isEmpty else {
            return refuse("invalid_request", "PKCE is required: send code_challenge with code_challenge_method S256.")
        }
        guard fields["code_challenge_method"] == PKCE.method else {
            return refuse("invalid_request", "The code challenge method is S256; plain is not taken.")
        }
        guard PKCE.isValidChallenge(challenge) else {
            return refuse("invalid_request", "code_challenge is the base64url of a SHA-256: 43 characters.")
        }
        let nonce = fields["nonce"]
        if let nonce, nonce.utf8.count > 255 {
            return refuse("invalid_request", "nonce is longer than 255 bytes.")
        }
        let deviceID = fields["device_id"] ?? "oauth-\(APIServices.randomBytes(16).base64URLEncoded)"
        if let problem = IdentifierRule.identifier.problem(deviceID) {
            return refuse("invalid_request", "device_id \(problem).")
        }
        return .success(
            Self(redirectURI: uri, state: state, codeChallenge: challenge, nonce: nonce, deviceID: deviceID)
        )
    }

    /// The fields that carry the request through the sign-in form.
    func formFields(app: AppRecord) -> [(String, String)] {
        [
            ("client_id", app.id), ("redirect_uri", redirectURI), ("response_type", "code"),
            ("code_challenge", codeChallenge), ("code_challenge_method", PKCE.method), ("device_id", deviceID),
        ] + [("state", state), ("nonce", nonce)].compactMap { name, value in value.map { (name, $0) } }
    }

    /// The redirect URI with `parameters` in its query (it has none of its own).
    static func location(_ uri: String, _ parameters: [(String, String?)]) -> String {
        uri + "?" + FormBody.text(parameters.compactMap { name, value in value.map { (name, $0) } })
    }

    /// Where the page's form may lead, for its `form-action`: Chromium applies it to the
    /// redirect after the form is sent, so the redirect URI's origin (any port on a
    /// loopback address, the scheme of a private-use one) is allowed besides the page.
    var formAction: String {
        if let loopback = RedirectURI.withoutPort(redirectURI) {
            let host = loopback.hasPrefix("http://[::1]") ? "http://[::1]" : "http://127.0.0.1"
            return "'self' \(host):*"
        }
        if redirectURI.hasPrefix("https://"), let url = URL(string: redirectURI), let host = url.host {
            return "'self' https://\(host)\(url.port.map { ":\($0)" } ?? "")"
        }
        let scheme = redirectURI.prefix { $0 != ":" }
        return "'self' \(scheme):"
    }
}
