import Foundation
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

    /// The fields of a form body (`application/x-www-form-urlencoded`), read as the WHATWG
    /// URL standard reads one: pairs split at `&`, the name from the value at the first
    /// `=`, `+` a space and `%XX` a byte, the bytes then UTF-8; the first value of a name
    /// counts. Any text is a body: a stray `%`, or a character a browser would have
    /// encoded, is taken as it is.
    ///
    /// Where the standard reads bytes that are not UTF-8 as U+FFFD, the field is left out
    /// here: two passwords that differ only in such bytes would otherwise be one. A body
    /// that is not UTF-8 text itself has no fields.
    static func form(_ body: ByteBuffer) -> [String: String] {
        guard let text = String(validating: body.readableBytesView, as: UTF8.self) else { return [:] }
        return form(text)
    }

    /// The fields of a form body given as text (see ``form(_:)-(ByteBuffer)``).
    static func form(_ body: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in body.utf8.split(separator: UInt8(ascii: "&")) {
            let equals = pair.firstIndex(of: UInt8(ascii: "="))
            guard let name = formDecoded(pair[..<(equals ?? pair.endIndex)]),
                let value = equals.map({ formDecoded(pair[pair.index(after: $0)...]) }) ?? ""
            else { continue }
            if fields[name] == nil { fields[name] = value }
        }
        return fields
    }

    /// One name or value of a form body, decoded; `nil` when its bytes are not UTF-8.
    private static func formDecoded(_ encoded: Substring.UTF8View) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(encoded.count)
        var index = encoded.startIndex
        while index < encoded.endIndex {
            let byte = encoded[index]
            index = encoded.index(after: index)
            switch byte {
            case UInt8(ascii: "+"):
                bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                let digits = encoded[index...].prefix(2)
                if digits.count == 2, let high = hexValue(digits.first!), let low = hexValue(digits.last!) {
                    bytes.append(high << 4 | low)
                    index = digits.endIndex
                } else {
                    bytes.append(byte)
                }
            default:
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// `text` as one name or value of a form or query (`application/x-www-form-urlencoded`,
    /// with every character but the unreserved ones percent-encoded).
    static func formEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    /// `fields` as a form body or query.
    static func formBody(_ fields: [(String, String)]) -> String {
        fields.map { "\(formEncoded($0.0))=\(formEncoded($0.1))" }.joined(separator: "&")
    }

    private static let unreserved: CharacterSet = {
        var allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        allowed.insert(charactersIn: "-._~")
        return allowed
    }()

    /// The origin of `url` (`scheme://host[:port]`), for a CSP source list.
    static func origin(of url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme,
            let host = components.percentEncodedHost, ["http", "https"].contains(scheme)
        else { return nil }
        return "\(scheme)://" + WebURL.authority(host: host, port: components.port)
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
