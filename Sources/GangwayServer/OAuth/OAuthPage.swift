import Foundation
import GangwayForms
import GangwayProtocol
import GangwayServerStorage
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// What the authorization server's HTML pages share (the device verification page, the
/// sign-in page of the authorization code grant): plain HTML with no script at all,
/// usable with a keyboard alone and on a phone, and answers that forbid framing, caching
/// and referrers and allow nothing to load from anywhere.
enum OAuthPage {
    /// The `oauth2` app the request's path names; `nil` for any other.
    static func app(_ context: ServerContext, api: MobileServicesAPI) async -> AppRecord? {
        guard let id = context.parameters.get("appID"), let app = try? await api.services.app(id),
            app.authentication.type == .oauth2
        else { return nil }
        return app
    }

    /// The most a page's form body may hold.
    static let formLimit = 16 * 1024

    /// A page: `main` in the shared document, with the pages' headers.
    static func response(
        status: HTTPResponse.Status,
        title: String,
        main: String,
        formAction: String = "'self'"
    ) -> Response {
        Response(
            status: status,
            headers: headers(formAction: formAction),
            body: .init(byteBuffer: ByteBuffer(string: document(title: title, main: main)))
        )
    }

    /// The hidden field that carries a form's anti-forgery token (``FormGuard``).
    static func tokenField(_ token: String) -> String {
        "<input type=\"hidden\" name=\"\(FormGuard.fieldName)\" value=\"\(escape(token))\">"
    }

    /// The answer to a form that did not come from the server's own page in this browser:
    /// 403, with nothing done.
    static func forged(_ refusal: FormGuard.Refusal, app: AppRecord, api: MobileServicesAPI) -> Response {
        api.services.logger.warning(
            "form refused",
            metadata: [
                "app": "\(app.id)", "reason": "\(refusal == .crossSite ? "cross-site" : "token")",
                "request": "\(RequestInfo.current.requestID)",
            ]
        )
        let message =
            refusal == .crossSite
            ? "This form was sent from another site, so nothing was done. Open this server's page yourself."
            : "This form has expired or was not sent from this server's page, so nothing was done. "
                + "Open the page again and send it from there."
        return response(
            status: .forbidden,
            title: "Not sent",
            main: "<h1>\(escape(app.name))</h1><p class=\"error\" role=\"alert\">\(escape(message))</p>"
        )
    }

    /// Which device asked to sign in, to which app and when, for a person to check
    /// before approving (RFC 8628 §5.4), as HTML.
    static func deviceAsked(_ grant: DeviceGrantRecord, app: AppRecord, now: Date) -> String {
        // A device that gave no ID got one made up by the server, which means nothing to a person.
        let device =
            grant.deviceID.hasPrefix("oauth-")
            ? "A device that gave no name"
            : "The device <strong>\(escape(grant.deviceID))</strong>"
        let minutes = max(0, Int(now.timeIntervalSince(grant.createdAt) / 60))
        let ago =
            switch minutes {
            case 0: "less than a minute ago"
            case 1: "a minute ago"
            default: "\(minutes) minutes ago"
            }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return "\(device) asked to sign in to <strong>\(escape(app.name))</strong> at "
            + "\(formatter.string(from: grant.createdAt)) UTC (\(ago))."
    }

    static let notFound = Response(
        status: .notFound,
        headers: headers,
        body: .init(byteBuffer: ByteBuffer(string: document(title: "Not found", main: "<p>There is no such page.</p>")))
    )

    static let headers = headers(formAction: "'self'")

    /// The headers of a page whose form may be sent to (or redirected after sending to)
    /// `formAction`, a CSP source list.
    static func headers(formAction: String) -> HTTPFields {
        [
            .contentType: "text/html; charset=utf-8",
            .cacheControl: "no-store",
            .contentSecurityPolicy:
                "default-src 'none'; style-src 'unsafe-inline'; form-action \(formAction); frame-ancestors 'none'; base-uri 'none'",
            HTTPField.Name("X-Frame-Options")!: "DENY",
            HTTPField.Name("Referrer-Policy")!: "no-referrer",
            .xContentTypeOptions: "nosniff",
        ]
    }

    static func document(title: String, main: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(escape(title))</title>
        <style>
        body { font-family: system-ui, sans-serif; margin: 0; padding: 1.5rem; max-width: 28rem; margin-inline: auto; line-height: 1.4; }
        label { display: block; margin-top: 1rem; font-weight: 600; }
        input { display: block; width: 100%; box-sizing: border-box; font-size: 1.1rem; padding: 0.6rem; margin-top: 0.3rem; }
        .buttons { display: flex; gap: 0.75rem; margin-top: 1.5rem; }
        button { flex: 1; font-size: 1.1rem; padding: 0.7rem; }
        :focus-visible { outline: 3px solid #1a5fb4; outline-offset: 2px; }
        .error { color: #a51d2d; font-weight: 600; }
        </style>
        </head>
        <body>
        <main>
        \(main)
        </main>
        </body>
        </html>
        """
    }

    /// `text` safe inside HTML text and double-quoted attributes.
    static func escape(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
