import Foundation
import HTTPTypes
import Synchronization

/// The server's HTML pages as a browser without a script engine uses them, over a
/// ``RunningTestServer``'s connection: it keeps the cookies the pages set and sends them
/// back, and sends a page's form with the hidden fields the page holds (its
/// anti-forgery token among them), as a browser sends a form it shows.
public final class PageBrowser: Sendable {
    private let server: RunningTestServer
    private let cookies = Mutex<[String: String]>([:])

    public init(_ server: RunningTestServer) {
        self.server = server
    }

    /// The cookies the browser holds, by name.
    public var cookieJar: [String: String] { cookies.withLock { $0 } }

    /// Sets or replaces a cookie, as another page of the same site might have.
    public func setCookie(_ name: String, _ value: String) {
        cookies.withLock { $0[name] = value }
    }

    /// `GET path`, with the browser's cookies; keeps the cookies the answer sets.
    public func get(_ path: String, headers: HTTPFields = [:]) async throws -> ServerReply {
        try await send(.get, path, body: nil, headers: headers)
    }

    /// Sends the first `method="post"` form of `page` to `path`: the page's hidden fields
    /// (the anti-forgery token among them), then `fields`, which replace hidden fields of
    /// the same name.
    public func submit(
        _ page: ServerReply,
        to path: String,
        _ fields: [(String, String)],
        headers: HTTPFields = [:]
    ) async throws -> ServerReply {
        var sent = Self.hiddenFields(of: page.text).filter { hidden in !fields.contains { $0.0 == hidden.0 } }
        sent += fields
        return try await post(path, sent, headers: headers)
    }

    /// `POST path` with `fields` as a form and the browser's cookies, and nothing taken
    /// from any page: what a page on another site can make a browser send.
    public func post(
        _ path: String,
        _ fields: [(String, String)],
        headers: HTTPFields = [:]
    ) async throws
        -> ServerReply
    {
        var headers = headers
        headers[.contentType] = "application/x-www-form-urlencoded"
        return try await send(.post, path, body: RunningTestServer.formBody(fields), headers: headers)
    }

    /// The hidden fields of the first `method="post"` form in `html`, in their order.
    public static func hiddenFields(of html: String) -> [(String, String)] {
        guard let form = html.range(of: "<form method=\"post\"") else { return [] }
        let rest = html[form.upperBound...]
        let end = rest.range(of: "</form>")?.lowerBound ?? rest.endIndex
        return rest[..<end].matches(of: /<input type="hidden" name="([^"]*)" value="([^"]*)">/).map {
            (unescape(String($0.output.1)), unescape(String($0.output.2)))
        }
    }

    private static func unescape(_ text: String) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    private func send(
        _ method: HTTPRequest.Method,
        _ path: String,
        body: String?,
        headers extra: HTTPFields
    ) async throws -> ServerReply {
        var headers = extra
        let jar = cookieJar
        if !jar.isEmpty, headers[.cookie] == nil {
            headers[.cookie] = jar.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")
        }
        let reply = try await server.send(method, path, json: body, headers: headers)
        for field in reply.headers[values: .setCookie] {
            let pair = field.prefix { $0 != ";" }
            guard let equals = pair.firstIndex(of: "=") else { continue }
            let name = String(pair[..<equals])
            let value = String(pair[pair.index(after: equals)...])
            let expired = field.contains("Max-Age=0")
            cookies.withLock { $0[name] = expired ? nil : value }
        }
        return reply
    }
}
