import AsyncHTTPClient
import Foundation
import GangwayProtocol
import GangwayServerStorage
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import Tracing

/// Forwards a device's request to one of its app's destinations and streams the answer
/// back: `…/apps/{appID}/destinations/{name}/{path}` becomes `{destination URL}/{path}`,
/// with the query as it came.
///
/// - Only a registered device of a live session, not locked or wiped, of a user who is
///   not blocked, gets through; the device's own credentials (its bearer token, cookies)
///   never reach the backend, which gets the signed-in person instead
///   (``DestinationIdentity``) or the destination's fixed credential.
/// - Only the URL the admin set is called: a path with a `.` or `..` segment, or an
///   encoded slash, is refused, no redirect is followed, and hop-by-hop headers go
///   neither way.
/// - Bodies stream both ways, within ``requestLimit`` and ``responseLimit``; the backend
///   has ``headTimeout`` to answer. Each request is counted per destination and status
///   (0 when the backend could not be reached), never with its body, by a
///   ``DestinationRequestCounter`` that writes the counts about once a second.
struct DestinationProxy: Sendable {
    let api: MobileServicesAPI
    /// What the API's handlers share: storage, keys, settings, clock and logger.
    var services: APIServices { api.services }
    let counter: DestinationRequestCounter
    /// Each person's share of each destination: at most ``requestsPerPerson`` requests
    /// under way at once (from the request until its answer has been passed on whole), so
    /// one device that starts downloads and never reads them holds a few of the
    /// connections to the backend, never all of them.
    let share = InFlightShare<ShareKey>(limit: Self.requestsPerPerson)

    /// What a share is counted under: a person, at a destination of an app.
    struct ShareKey: Hashable, Sendable {
        var appID: String
        var destination: String
        var username: String
    }

    /// The most requests one person has under way to one destination.
    static let requestsPerPerson = 6

    init(api: MobileServicesAPI) {
        self.api = api
        counter = DestinationRequestCounter(storage: api.services.storage, logger: api.services.logger)
    }

    /// The largest body a device sends to a destination.
    static let requestLimit = 16 << 20
    /// The largest answer a destination gives a device.
    static let responseLimit = 1 << 30
    /// The longest refusal (an answer of 300 or more to a request with a body) read whole
    /// before it is passed on.
    static let refusalLimit = 64 << 10
    /// How long a destination has to begin its answer.
    static let headTimeout: TimeAmount = .seconds(30)

    /// The connections kept to one backend: many times one person's share
    /// (``requestsPerPerson``).
    static let connectionsPerBackend = 64

    /// One client for every server of the process; it follows no redirect. A request
    /// waits for a connection as long as a backend has to begin its answer.
    static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.timeout = .init(connect: .seconds(10), read: .seconds(60))
        configuration.connectionPool = .init(
            idleTimeout: .seconds(60),
            concurrentHTTP1ConnectionsPerHostSoftLimit: connectionsPerBackend
        )
        configuration.decompression = .disabled
        // The server's own spans say what it asked (``ServerTracer``); the client's would
        // add the URL whole, its query too.
        configuration.tracing.tracer = nil
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    /// A request for a destination.
    struct Target: Equatable {
        var appID: String
        var name: String
        /// What follows the destination's name: empty, or starting with `/`.
        var path: String
    }

    /// The destination a path is for: `/apps/{appID}/destinations/{name}` and what follows.
    static func target(inPath path: String) -> Target? {
        let prefix = "/apps/"
        guard path.hasPrefix(prefix) else { return nil }
        let parts = path.dropFirst(prefix.count).split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count >= 3, parts[1] == "destinations", !parts[0].isEmpty, !parts[2].isEmpty else { return nil }
        return Target(
            appID: String(parts[0]),
            name: String(parts[2]),
            path: parts.count == 4 ? "/" + parts[3] : ""
        )
    }

    func respond(to request: Request, target: Target) async throws -> Response {
        let caller = try await services.authenticate(appID: target.appID, requiresRegistration: true)
        guard
            let user = try await services.perform({
                try await services.storage.cachedUser(named: caller.session.username)
            }),
            !user.blocked
        else { throw APIError.unauthorized }
        guard let device = caller.device else { throw APIError.deviceNotRegistered }
        try Validation.identifierOrNotFound(target.name)
        guard
            let destination = try await services.perform({
                try await services.storage.destination(appID: caller.app.id, name: target.name)
            })
        else { throw APIError.destinationNotFound }
        guard Self.isPlain(target.path) else {
            throw APIError.badRequest("The path may not hold a . or .. segment, or an encoded slash.")
        }
        if let length = request.headers[.contentLength].flatMap(Int.init), length > Self.requestLimit {
            throw Self.tooLarge
        }
        let url = Self.url(destination.url, target.path, query: request.uri.query)
        // What the HTTP client will ask for is what was checked: a URL that does not parse
        // back to the same path never goes.
        guard Self.keepsPath(url, base: destination.url, path: target.path) else {
            throw APIError.badRequest("The path or the query is not one a URL can carry.")
        }
        // A host may come to resolve to an inner address after it was put: checked again.
        if services.settings.publicDestinationsOnly, await DestinationAddresses.refusal(destination.url) != nil {
            services.logger.warning(
                "destination refused: its host does not reach a public address",
                metadata: ["app": "\(caller.app.id)", "destination": "\(destination.name)"]
            )
            throw APIError(
                .badGateway,
                .destinationUnavailable,
                "The destination's address is not a public one, which this server does not send to."
            )
        }
        let key = ShareKey(appID: caller.app.id, destination: destination.name, username: user.username)
        guard let place = share.take(key) else {
            throw APIError(
                .tooManyRequests,
                .destinationBusy,
                "You have \(Self.requestsPerPerson) requests under way to this destination, as many as one person "
                    + "may; try again once one has ended.",
                retryAfterSeconds: 1
            )
        }
        do {
            return try await forward(
                request,
                to: url,
                of: destination,
                as: (caller, user, device),
                place: place
            )
        } catch {
            place.release()
            throw error
        }
    }

    /// Sends the checked request to `url` of `destination` for `person`, and the answer
    /// back; `place` is given back once the answer has been passed on.
    private func forward(
        _ request: Request,
        to url: String,
        of destination: DestinationRecord,
        as person: (caller: APIServices.Caller, user: UserRecord, device: DeviceRecord),
        place: InFlightShare<ShareKey>.Place
    ) async throws -> Response {
        let (caller, user, device) = person
        var outgoing = HTTPClientRequest(url: url)
        outgoing.method = HTTPMethod(rawValue: request.method.rawValue)
        outgoing.headers = Self.forwarded(
            request.headers,
            client: RequestInfo.current.clientAddress(trusting: services.settings.trustedProxies)
        )
        outgoing.headers.add(name: "X-Request-ID", value: RequestInfo.current.requestID)
        switch destination.authentication {
        case .identity:
            let identity = DestinationIdentity(
                issuer: api.oauth.issuer(of: caller.app),
                audience: destination.url,
                username: user.username,
                displayName: user.displayName,
                app: caller.app.id,
                registration: device.registrationID,
                at: services.now()
            )
            let token: String
            do {
                token = try await services.keys.destinationTokens.signer(at: identity.issuedAt).sign(identity)
            } catch {
                throw APIError.storage(StorageError(.unavailable, "the identity could not be signed"))
            }
            outgoing.headers.add(name: "Authorization", value: "Bearer " + token)
        case .credential:
            guard let credential = Self.credential(of: destination, keys: services.keys) else {
                throw APIError(
                    .badGateway,
                    .destinationUnavailable,
                    "The destination's credential does not open with the server key; an admin sets it again."
                )
            }
            outgoing.headers.replaceOrAdd(name: credential.name, value: credential.value)
        }
        // The relay is the body's one reader; nothing below returns or throws while its
        // pump still reads (see ``RequestBodyRelay``).
        let relay =
            [.post, .put, .patch, .delete].contains(request.method)
            ? RequestBodyRelay(reading: request.body, limit: Self.requestLimit) : nil
        if let relay {
            let length = request.headers[.contentLength].flatMap(Int.init)
            outgoing.body = .stream(relay, length: length.map { .known(Int64($0)) } ?? .unknown)
        }
        let answer: HTTPClientResponse
        let started = ContinuousClock.now
        // Labelled by the app and the destination an admin made: never a name a device sent.
        let label = caller.app.id + "/" + destination.name
        do {
            // The call upstream is a span of its own, until the backend's head comes; its
            // trace context is what the backend gets.
            let method = ServerMetrics.label(method: request.method.rawValue)
            answer = try await services.tracer.withSpan(
                "\(method) destination",
                ofKind: .client,
                attributes: { attributes in
                    attributes["http.request.method"] = method
                    attributes["gangway.app"] = caller.app.id
                    attributes["gangway.destination"] = destination.name
                    if let host = URLComponents(string: destination.url)?.host { attributes["server.address"] = host }
                }
            ) { span in
                var outgoing = outgoing
                for header in services.tracer.onwardHeaders(RequestInfo.current.trace) {
                    outgoing.headers.add(name: header.name, value: header.value)
                }
                let answer = try await Self.client.execute(outgoing, timeout: Self.headTimeout)
                span?.attributes["http.response.status_code"] = Int(answer.status.code)
                return answer
            }
        } catch {
            let outcome = await relay?.finish()
            services.metrics.destination(label, status: 0, duration: ContinuousClock.now - started)
            await count(caller.app.id, destination.name, status: 0)
            services.logger.warning(
                "destination unavailable",
                metadata: [
                    "app": "\(caller.app.id)", "destination": "\(destination.name)",
                    "error": "\(type(of: error))", "request": "\(RequestInfo.current.requestID)",
                ]
            )
            if outcome == .tooLarge || error is BodyTooLarge { throw Self.tooLarge }
            throw APIError(.badGateway, .destinationUnavailable, "The destination could not be reached. Try again.")
        }
        // An answer of 300 or more before the body was read refuses it: the client sends
        // no more of it (as AsyncHTTPClient itself does), and the rest the device sends is
        // dropped.
        if answer.status.code >= 300 { relay?.stop() }
        services.metrics.destination(label, status: Int(answer.status.code), duration: ContinuousClock.now - started)
        await count(caller.app.id, destination.name, status: Int(answer.status.code))
        var headers = HTTPFields()
        for (name, value) in Self.returned(answer.headers) {
            if let field = HTTPField.Name(name) { headers.append(HTTPField(name: field, value: value)) }
        }
        // Marks the backend's answer as the backend's: a device tells it from the server's own.
        headers[HTTPField.Name("X-Gangway-Destination")!] = destination.name
        // The answer comes from this server's origin (the console's, on one port): a
        // browser neither guesses its type nor runs it as a page of this origin.
        headers[.xContentTypeOptions] = "nosniff"
        headers[.contentSecurityPolicy] = "sandbox; default-src 'none'; frame-ancestors 'none'"
        let length = answer.headers.first(name: "Content-Length").flatMap(Int.init)
        if let length, length > Self.responseLimit {
            await relay?.finish()
            throw APIError(.badGateway, .destinationUnavailable, "The destination's answer is larger than allowed.")
        }
        // The backend's length goes on, so a device can tell how far a large answer came.
        if let length { headers[.contentLength] = String(length) }
        // A short refusal is read whole before the device gets its head. A backend may refuse
        // while the body is still on its way, and when the body's end reaches the HTTP client
        // just as the refusal does, AsyncHTTPClient 1.37 finds it sent less than the length
        // it was given and drops the refusal's body with the request. Read first, the device
        // gets the backend's answer whole, or a whole 502: never a head without its body.
        var refusal: ByteBuffer?
        if relay != nil, answer.status.code >= 300, let length, length <= Self.refusalLimit {
            do {
                refusal = try await answer.body.collect(upTo: length)
            } catch {
                await relay?.finish()
                services.logger.warning(
                    "destination answer cut off",
                    metadata: [
                        "app": "\(caller.app.id)", "destination": "\(destination.name)",
                        "status": "\(answer.status.code)", "error": "\(type(of: error))",
                        "request": "\(RequestInfo.current.requestID)",
                    ]
                )
                throw APIError(.badGateway, .destinationUnavailable, "The destination's answer was cut off. Try again.")
            }
        }
        let body = LimitedBody(base: answer.body, limit: Self.responseLimit)
        return Response(
            status: HTTPResponse.Status(code: Int(answer.status.code), reasonPhrase: answer.status.reasonPhrase),
            headers: headers,
            body: ResponseBody(contentLength: length) { [refusal] writer in
                // The answer is written whole before the server reads on: the relay's pump
                // ends first, however the answer ends.
                do {
                    if let refusal {
                        try await writer.write(refusal)
                    } else {
                        for try await buffer in body { try await writer.write(buffer) }
                    }
                } catch {
                    await relay?.finish()
                    place.release()
                    throw error
                }
                await relay?.finish()
                place.release()
                try await writer.finish(nil)
            }
        )
    }

    /// The answer to a body past ``requestLimit``.
    static let tooLarge = APIError(.contentTooLarge, .payloadTooLarge, "The body is larger than a destination takes.")

    private func count(_ appID: String, _ destination: String, status: Int) async {
        await counter.add(appID: appID, destination: destination, status: status, at: services.now())
    }

    // MARK: Paths and headers

    /// The backend's URL for `path` under `base`, with the query as the device sent it.
    /// The header a destination of credential authentication sends, with its value
    /// opened; `nil` when it has none, or it does not open with the server key.
    static func credential(of destination: DestinationRecord, keys: ServerKeys) -> (name: String, value: String)? {
        guard let header = destination.credentialHeader, let sealed = destination.sealedCredential,
            let value = try? keys.server.open(
                sealed,
                for: DestinationsHandler.destinationCredentialPurpose(appID: destination.appID, name: destination.name),
                plainLength: -1
            )
        else { return nil }
        return (header, String(decoding: value, as: UTF8.self))
    }

    static func url(_ base: String, _ path: String, query: String?) -> String {
        let trimmed = base.hasSuffix("/") ? String(base.dropLast()) : base
        return trimmed + path + (query.map { $0.isEmpty ? "" : "?" + $0 } ?? "")
    }

    /// Whether `path` stays under the destination's URL: every percent-escape decodes to
    /// UTF-8 text (a URL parser may drop a path it cannot read, and send `/`), no `.` or
    /// `..` segment, plain or percent-encoded, and no encoded slash or backslash.
    static func isPlain(_ path: String) -> Bool {
        let lowered = path.lowercased()
        guard !lowered.contains("%2f"), !lowered.contains("%5c"), !path.contains("\\") else { return false }
        guard path.removingPercentEncoding != nil else { return false }
        for segment in path.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            // A segment's parameters (`..;x`, which Tomcat and Jetty read as `..`) do not
            // hide a dot segment, encoded or not.
            let bare = String(segment.prefix { $0 != ";" })
            guard let decoded = segment.removingPercentEncoding, let name = bare.removingPercentEncoding else {
                return false
            }
            let names = [name, String(decoded.prefix { $0 != ";" })]
            if names.contains(where: { $0 == "." || $0 == ".." }) { return false }
        }
        return true
    }

    /// Whether `url` parses, as the HTTP client parses it, to the destination's own path
    /// followed by `path`.
    static func keepsPath(_ url: String, base: String, path: String) -> Bool {
        guard let parsed = URLComponents(string: url), let baseComponents = URLComponents(string: base) else {
            return false
        }
        let basePath =
            baseComponents.percentEncodedPath.hasSuffix("/")
            ? String(baseComponents.percentEncodedPath.dropLast()) : baseComponents.percentEncodedPath
        return parsed.percentEncodedPath == basePath + path && parsed.host == baseComponents.host
    }

    /// Headers that concern one connection (RFC 9110 §7.6.1), or that the proxy sets.
    static let hopByHop: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization", "te", "trailer",
        "transfer-encoding", "upgrade", "host", "content-length",
    ]

    /// Headers that say who sent a request or where it went, which a device could forge:
    /// the backend gets the server's own (`X-Forwarded-For`), never the device's.
    static let forgeable: Set<String> = [
        "forwarded", "x-forwarded-for", "x-forwarded-host", "x-forwarded-proto", "x-forwarded-port", "x-real-ip",
        "x-client-ip",
    ]

    /// Whether the proxy drops the device's header `name` (lower case) or sets its own:
    /// what concerns this connection (``hopByHop``), names a sender (``forgeable``), or
    /// speaks for the server (`X-Request-ID`, `X-Gangway-…`, the trace's `traceparent`
    /// and `tracestate`, which name the server's span), and the device's credentials
    /// (`Authorization`, `Cookie`).
    static func replaces(_ name: String) -> Bool {
        hopByHop.contains(name) || forgeable.contains(name) || name.hasPrefix("x-gangway-")
            || ["authorization", "cookie", "x-request-id", "traceparent", "tracestate"].contains(name)
    }

    /// Whether a destination's credential cannot go in the header `name`: the proxy drops
    /// it or sets its own (``replaces(_:)``; `Authorization` is where a credential
    /// usually goes, in place of the device's), or it says how to read the body
    /// (`Content-Type`, `Expect`).
    static func setsItself(_ name: String) -> Bool {
        let lowered = name.lowercased()
        return lowered != "authorization" && replaces(lowered) || ["content-type", "expect"].contains(lowered)
    }

    /// The device's headers a backend gets: not its credentials, nor what concerns this
    /// connection, nor what names a sender (``forgeable``) or speaks for the server
    /// (`X-Gangway-…`); `client` (the device's address as this server knows it) goes as
    /// `X-Forwarded-For`.
    static func forwarded(_ fields: HTTPFields, client: String) -> HTTPHeaders {
        let named = connectionNamed(fields[values: .connection])
        var headers = HTTPHeaders()
        for field in fields {
            let name = field.name.canonicalName
            if replaces(name) || named.contains(name) { continue }
            headers.add(name: field.name.rawName, value: field.value)
        }
        headers.add(name: "X-Forwarded-For", value: client)
        return headers
    }

    /// The backend's headers a device gets: not what concerns that connection.
    static func returned(_ headers: HTTPHeaders) -> [(String, String)] {
        let named = connectionNamed(headers[canonicalForm: "connection"].map(String.init))
        return headers.filter { name, _ in
            let lowered = name.lowercased()
            return !hopByHop.contains(lowered) && !named.contains(lowered) && lowered != "set-cookie"
        }.map { ($0.name, $0.value) }
    }

    private static func connectionNamed(_ values: [String]) -> Set<String> {
        Set(values.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces).lowercased() })
    }
}

/// A body went past its limit.
struct BodyTooLarge: Error {}

/// A body that ends in an error past `limit` bytes.
struct LimitedBody<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable
where Base.Element == ByteBuffer {
    typealias Element = ByteBuffer

    let base: Base
    let limit: Int

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        let limit: Int
        var seen = 0

        mutating func next() async throws -> ByteBuffer? {
            guard let buffer = try await base.next() else { return nil }
            seen += buffer.readableBytes
            if seen > limit { throw BodyTooLarge() }
            return buffer
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), limit: limit)
    }
}
