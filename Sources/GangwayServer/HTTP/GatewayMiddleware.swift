import Foundation
import GangwayConsole
import GangwayProtocol
import GangwayServerStorage
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import OpenAPIRuntime
import Tracing

/// The one middleware in front of every route.
///
/// It gives each request an ID (the caller's `x-request-id` when it is a plain token,
/// else a new one) and echoes it; refuses bodies that are too large (413) or not JSON
/// (415) before any handler runs; hands the handlers the request ID, the peer's address
/// and the bearer token through ``RequestInfo``; turns every error into the JSON error
/// document with a stable code (a page, for the console's paths), so malformed input is
/// a 4xx and never a crash; gives every answer its default headers (`nosniff`,
/// `no-store` for a caller's own data, `Strict-Transport-Security` behind https); and
/// logs one line per request with method, path, status and time, never the query,
/// headers or body; and, with a tracer, makes each request a span named by its route's
/// template, the caller's `traceparent` its parent.
struct GatewayMiddleware: RouterMiddleware {
    typealias Context = ServerContext

    /// The largest body any route accepts: 1 MiB, enough for the biggest log upload,
    /// from a request whose bearer token is the admin's or a live session's, or a form of
    /// a signed-in operator's console.
    static let maximumBodySize = 1 << 20
    /// The largest body of a request from no such caller (a sign-in, an OAuth request or
    /// page): 16 KiB, so a flood of half-sent bodies before any authentication holds
    /// little memory.
    static let unauthenticatedBodySize = 16 << 10
    /// The most bodies past ``unauthenticatedBodySize`` (or of no declared length) one
    /// caller sends at once: one person's, or the admin's, or one operator's, whatever the
    /// number of their sessions. A caller who starts many and finishes none holds a few
    /// MiB, never the server's memory.
    static let largeBodiesPerCaller = 4

    /// The routes of the document, to answer 405 for a known path with another method.
    let routes: RouteTable
    /// Who the request comes from when the server knows them: `admin` when its bearer
    /// token is the admin's, `user:` and the name for a live session's, `operator:` and
    /// the name for a signed-in operator's console cookie; `nil` for anyone else.
    let knownCaller: @Sendable (HTTPRequest) async -> String?
    /// The large bodies each known caller is sending (``largeBodiesPerCaller``).
    let largeBodies = InFlightShare<String>(limit: largeBodiesPerCaller)
    /// Whether the address people reach this listener at is `https`: browsers are then
    /// told to use nothing else (`Strict-Transport-Security`).
    var isSecureOrigin: @Sendable () -> Bool = { false }
    /// Whether this listener serves the console: its refusals of `/console` paths are then
    /// pages. The devices' address, when the console has its own, answers them as the API.
    var servesConsole = true
    /// IDs for requests that bring none.
    let requestIDs = RequestIDSequence()
    /// Where each request is counted, by its route's template (``ServerMetrics``).
    var metrics: ServerMetrics?
    /// Where each request's span goes, named by its route's template (``RequestSpans``).
    var tracer: RequestSpans = .none

    func handle(
        _ request: Request,
        context: ServerContext,
        next: (Request, ServerContext) async throws -> Response
    ) async throws -> Response {
        // Only a request of a method that sends a body pays for the lookup.
        let streamed =
            [.post, .put, .patch].contains(request.method)
            && routes.streamsBody(method: request.method.rawValue, path: request.uri.path)
        return try await handle(request, context: context, body: streamed ? .streamedByRoute : .collected, next: next)
    }

    /// Who reads a request's body.
    enum BodyReading {
        /// This middleware, within its limits, before the route runs; and it checks the
        /// body is JSON, or a form where the route takes one.
        case collected
        /// A route of the document whose body streams (``RouteTable/streamsBody(method:path:)``):
        /// it holds one of its caller's large-body places while it reads, and a refusal
        /// ends its connection, since the rest of the body may be unread.
        case streamedByRoute
        /// The destinations' proxy, within its own limit.
        case streamedByProxy
    }

    func handle(
        _ request: Request,
        context: ServerContext,
        body reading: BodyReading,
        next: (Request, ServerContext) async throws -> Response
    ) async throws -> Response {
        let traceparent = request.headers[Self.traceparent]
        let tracestate = request.headers[Self.tracestate]
        // The route's template only when something records it.
        let route =
            metrics != nil || tracer.isOn
            ? (reading == .streamedByProxy
                ? Self.destinationRoute : routes.template(for: request.uri.path) ?? Self.unmatchedRoute) : nil
        guard tracer.isOn, let route, !Self.isProbe(request.uri.path) else {
            let trace = RequestTrace(traceparent: traceparent, tracestate: tracestate)
            return try await respond(request, context: context, body: reading, trace: trace, route: route, next: next)
        }
        let fields = RequestSpanFields(
            method: ServerMetrics.label(method: Self.method(of: request, context: context)),
            route: route,
            scheme: isSecureOrigin() ? "https" : "http"
        )
        return try await tracer.withSpan(of: fields, traceparent: traceparent, tracestate: tracestate) { trace in
            try await respond(request, context: context, body: reading, trace: trace, route: route, next: next)
        }
    }

    /// The method the caller sent: `HEAD` for a HEAD answered as its GET.
    private static func method(of request: Request, context: ServerContext) -> String {
        context.isHead ? HTTPRequest.Method.head.rawValue : request.method.rawValue
    }

    /// Whether a path is a health probe's, which no span records: load balancers ask
    /// every few seconds.
    private static func isProbe(_ path: String) -> Bool {
        path == "/health" || path.hasPrefix("/health/")
    }

    /// Answers the request in its trace (``handle(_:context:body:next:)``).
    private func respond(
        _ request: Request,
        context: ServerContext,
        body reading: BodyReading,
        trace: RequestTrace,
        route: String?,
        next: (Request, ServerContext) async throws -> Response
    ) async throws -> Response {
        let started = ContinuousClock.now
        let requestID = Self.requestID(from: request.headers[.requestID]) ?? requestIDs.next()
        let logger = context.logger
        let info = RequestInfo(
            requestID: requestID,
            peer: context.remoteAddress,
            bearerToken: BearerToken.parse(authorization: request.headers[.authorization]),
            forwardedFor: request.headers[.xForwardedFor],
            auditNote: request.method == .get || request.method == .head ? nil : AuditNote(),
            trace: trace
        )

        var response: Response
        let streamedRoute = reading == .streamedByRoute
        // A streamed body holds one of its caller's places while it is read; a caller the
        // server does not know is refused by the route's access check before any of it is.
        var streamPlace: InFlightShare<String>.Place?
        defer { streamPlace?.release() }
        do {
            var request = request
            if streamedRoute, let caller = await knownCaller(request.head) {
                // The body's type is judged for the admin's token alone (the one that
                // may send it): anyone else is refused by the route's access check first.
                let (mediaType, charset) = Self.mediaType(request.headers[.contentType])
                let isAdmin = caller == APIServices.adminHolder
                guard !isAdmin || mediaType == RouteTable.streamedMediaType,
                    !isAdmin || charset.map(["utf-8", "utf8"].contains) ?? true
                else {
                    throw APIError(
                        .unsupportedMediaType,
                        .unsupportedMediaType,
                        "Send the body as \(RouteTable.streamedMediaType), in UTF-8."
                    )
                }
                guard let taken = largeBodies.take(caller) else { throw Self.tooManyBodies }
                streamPlace = taken
            }
            if reading == .collected {
                // Only a request of a method that sends a body pays for the lookup.
                let caller =
                    [.post, .put, .patch].contains(request.method) ? await knownCaller(request.head) : nil
                // A body that may be large holds one of its caller's places while it is read.
                var place: InFlightShare<String>.Place?
                if let caller,
                    request.headers[.contentLength].flatMap(Int.init).map({
                        $0 > Self.unauthenticatedBodySize
                    }) ?? true
                {
                    guard let taken = largeBodies.take(caller) else { throw Self.tooManyBodies }
                    place = taken
                }
                let limit = caller == nil ? Self.unauthenticatedBodySize : Self.maximumBodySize
                request = try await Self.checkedBody(of: request, limit: limit)
                place?.release()
            }
            response = try await RequestInfo.$current.withValue(info) {
                try await next(request, context)
            }
        } catch  where OAuthPaths.isOAuth(request.uri.path) {
            var errorLogger = logger
            errorLogger[metadataKey: "request"] = "\(requestID)"
            response = Self.oauthResponse(for: error, logger: errorLogger)
        } catch {
            // Metadata is set only here: the stream log handler formats metadata as soon as it
            // is set, a few percent of the settings route when done on every request.
            var errorLogger = logger
            errorLogger[metadataKey: "request"] = "\(requestID)"
            var apiError = Self.apiError(for: error, logger: errorLogger)
            var allowed: [String]?
            // A method the route does not take is that, whatever its body (whose type is
            // judged before the route is found).
            if (apiError.status == .notFound && apiError.code == .notFound)
                || apiError.status == .unsupportedMediaType,
                let methods = routes.methods(for: request.uri.path), !methods.contains(request.method.rawValue)
            {
                apiError = APIError(.methodNotAllowed, .methodNotAllowed, "The route does not take this method.")
                allowed = methods
            }
            // The console's operator is in a browser: a page, not the API's document.
            response =
                servesConsole && ConsolePaths.takesForms(request.uri.path)
                ? Self.consoleResponse(for: apiError) : Self.response(for: apiError, requestID: requestID)
            if let allowed { response.headers[.allow] = allowed.joined(separator: ", ") }
        }
        response.headers[.requestID] = requestID
        // An answer to a caller who sent credentials, or to a request that changes
        // something, holds that caller's data (a session's token, a recovery secret,
        // settings): kept by no cache unless the route says otherwise. Public documents
        // (keys, discovery) stay cacheable. Every answer is read as the type it says.
        let isPublicRead =
            (request.method == .get || request.method == .head) && request.headers[.authorization] == nil
            && request.headers[.cookie] == nil
        if response.headers[.cacheControl] == nil, !isPublicRead { response.headers[.cacheControl] = "no-store" }
        if response.headers[.xContentTypeOptions] == nil { response.headers[.xContentTypeOptions] = "nosniff" }
        if isSecureOrigin() { response.headers[.strictTransportSecurity] = "max-age=31536000" }
        // The rest of a body too large is never read: the connection ends with the answer.
        // So with a refusal of a streamed body, which may come before it was read.
        if response.status == .contentTooLarge || (streamedRoute && response.status.code >= 400) {
            response.headers[.connection] = "close"
        }
        let elapsed = ContinuousClock.now - started
        if let metrics, let route {
            metrics.request(
                route: route,
                method: Self.method(of: request, context: context),
                status: Int(response.status.code),
                duration: elapsed
            )
        }
        logger.info(
            "request",
            metadata: [
                "request": "\(requestID)",
                "trace": "\(info.trace.traceID)",
                "method": "\(Self.method(of: request, context: context))",
                "path": "\(request.uri.path)",
                "status": "\(response.status.code)",
                "ms": "\(String(format: "%.2f", elapsed.seconds * 1000))",
            ]
        )
        return response
    }

    /// The W3C Trace Context headers (``RequestTrace``).
    static let traceparent = HTTPField.Name("traceparent")!
    static let tracestate = HTTPField.Name("tracestate")!

    /// The route label of every request to a destination's backend, whatever it asks of it.
    static let destinationRoute = "/apps/{appID}/destinations/{destination}/*"
    /// The route label of a request to a path no route has.
    static let unmatchedRoute = "unmatched"
    /// The route label of a request HTTP's parser could not read (``UnreadableRequest``).
    static let unreadableRoute = "unreadable"
    /// The route label of a request refused at the connection cap (``ConnectionCap``).
    static let connectionCapRoute = "connection-cap"

    /// The caller's ID when it is a plain token of at most 64 characters.
    private static func requestID(from header: String?) -> String? {
        if let header, (1...64).contains(header.count),
            header.unicodeScalars.allSatisfy({ CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_" }),
            header.allSatisfy(\.isASCII)
        {
            return header
        }
        return nil
    }

    /// Collects a body up to the limit and checks that it is JSON, or a form where the
    /// route takes one (OAuth's endpoints and pages).
    private static func checkedBody(of request: Request, limit: Int) async throws(APIError) -> Request {
        guard [.post, .put, .patch].contains(request.method) else { return request }
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
            throw tooLarge
        }
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: limit)
        } catch {
            throw tooLarge
        }
        if body.readableBytes > 0 {
            let (mediaType, charset) = Self.mediaType(request.headers[.contentType])
            // Only a request with a body pays for looking at its path.
            if OAuthPaths.takesForms(request.uri.path) || ConsolePaths.takesForms(request.uri.path) {
                guard mediaType == "application/x-www-form-urlencoded" else {
                    throw APIError(
                        .unsupportedMediaType,
                        .unsupportedMediaType,
                        "Send the body as application/x-www-form-urlencoded."
                    )
                }
                // A form is ASCII with its bytes percent-encoded, read as UTF-8 whatever
                // the label (a field that is not UTF-8 is left out): the labels clients
                // send by default are taken, others are not.
                guard charset.map(["utf-8", "utf8", "us-ascii", "iso-8859-1"].contains) ?? true else {
                    throw APIError(.unsupportedMediaType, .unsupportedMediaType, "Send the form as UTF-8.")
                }
            } else if mediaType != "application/json" {
                throw APIError(.unsupportedMediaType, .unsupportedMediaType, "Send the body as application/json.")
            } else if let charset, !["utf-8", "utf8"].contains(charset) {
                // JSON is read as UTF-8: one said to be in another character set is not read
                // as something it is not.
                throw APIError(.unsupportedMediaType, .unsupportedMediaType, "Send the body as UTF-8 (charset=utf-8).")
            } else if let key = body.withUnsafeReadableBytes(DuplicateJSONKeys.first(in:)) {
                let shown = TextRules.shown(key, limit: 64)
                throw APIError.badRequest("The body names '\(shown)' twice in one object: send each key once.")
            }
        }
        return request
    }

    /// A `Content-Type`'s media type and `charset`, in lower case.
    static func mediaType(_ header: String?) -> (type: String?, charset: String?) {
        let parts = header?.split(separator: ";") ?? []
        let type = parts.first?.trimmingCharacters(in: .whitespaces).lowercased()
        let charset = parts.dropFirst().lazy.compactMap { parameter -> String? in
            let pair = parameter.split(separator: "=", maxSplits: 1).map {
                $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                    .lowercased()
            }
            return pair.count == 2 && pair[0] == "charset" ? pair[1] : nil
        }.first
        return (type, charset)
    }

    private static let tooLarge = APIError(
        .contentTooLarge,
        .payloadTooLarge,
        "The body is larger than this request may send: \(unauthenticatedBodySize) bytes without a "
            + "session's or the admin's token, \(maximumBodySize) with one."
    )

    /// A known caller sends as many large bodies at once as one may.
    static let tooManyBodies = APIError(
        .tooManyRequests,
        .tooManyBodies,
        "You are sending \(largeBodiesPerCaller) large bodies at once, as many as one caller may; send this once one "
            + "of them has ended.",
        retryAfterSeconds: 1
    )

    static func apiError(for error: any Error, logger: Logger) -> APIError {
        switch error {
        case let error as APIError:
            return error
        case let error as ServerError:
            if let apiError = error.underlyingError as? APIError { return apiError }
            if error.operationInput == nil {
                // The generated code could not read the request: it does not match the document.
                let isForm = error.request.headerFields[.contentType]?.lowercased()
                    .hasPrefix("application/x-www-form-urlencoded")
                return mismatch(
                    in: error.underlyingError,
                    body: [.get, .head, .delete].contains(error.request.method)
                        ? nil : isForm == true ? "a form" : "valid JSON"
                )
            }
            logger.error(
                "handler failed",
                metadata: ["operation": "\(error.operationID)", "error": "\(type(of: error.underlyingError))"]
            )
            return internalError
        case let error as any HTTPResponseError:
            switch error.status {
            case .notFound: return .notFound(.notFound, "There is no such route.")
            case .methodNotAllowed:
                return APIError(.methodNotAllowed, .methodNotAllowed, "The route does not take this method.")
            case .contentTooLarge: return tooLarge
            default:
                // Any other refusal of the HTTP layer: the contract's code for its class.
                let status = error.status
                return APIError(
                    status,
                    status.kind == .serverError ? .internal : .badRequest,
                    status.reasonPhrase
                )
            }
        default:
            logger.error("request failed", metadata: ["error": "\(type(of: error))"])
            return internalError
        }
    }

    private static let internalError = APIError(
        .internalServerError,
        .`internal`,
        "The server failed; the request ID identifies it in the server's log."
    )

    /// "The request does not match the API document (at body.user.name)." for a decoding
    /// error, so the client knows which field (a key the body should not have:
    /// ``APIError/unknownField(at:)``); when the error names none, the body, or for a
    /// request without one (`readsBody` false) its path or query.
    /// - Parameter body: What the body was to be (`valid JSON`, `a form`), when the
    ///   request has one.
    private static func mismatch(in error: any Error, body: String?) -> APIError {
        let lead = "The request does not match the API document"
        var current: (any Error)? = error
        while let error = current {
            if let decoding = error as? DecodingError {
                let path: [any CodingKey]
                var unknown = false
                switch decoding {
                case .dataCorrupted(let context):
                    path = context.codingPath
                    // swift-openapi-runtime's words for a key the schema does not list.
                    unknown = context.debugDescription.hasPrefix("Additional properties are disabled")
                case .typeMismatch(_, let context), .valueNotFound(_, let context):
                    path = context.codingPath
                case .keyNotFound(let key, let context):
                    path = context.codingPath + [key]
                @unknown default:
                    path = []
                }
                // A key the body sent is the client's text: shown short, its controls escaped.
                let names = path.map {
                    $0.intValue.map(String.init)
                        ?? TextRules.shown($0.stringValue, limit: 64)
                }
                guard names.isEmpty else {
                    let at = names.joined(separator: ".")
                    return unknown ? .unknownField(at: at) : .badRequest("\(lead) (at \(at)).")
                }
                return .badRequest(
                    body.map { "\(lead) (the body is not \($0) of the right shape)." }
                        ?? "\(lead) (a value in the path or the query is not of the right form)."
                )
            }
            current = (error as? ServerError)?.underlyingError
        }
        return .badRequest("\(lead).")
    }

    /// An OAuth endpoint's error as RFC 6749 §5.2 shapes it; anything that is not already
    /// an ``OAuthError`` (a body that is not a form, a malformed one) is `invalid_request`,
    /// and a failure of the server `server_error`, with the status it would have had.
    static func oauthResponse(for error: any Error, logger: Logger) -> Response {
        let oauth: OAuthError
        if let error = (error as? OAuthError) ?? ((error as? ServerError)?.underlyingError as? OAuthError) {
            oauth = error
        } else {
            let apiError = apiError(for: error, logger: logger)
            switch apiError.status.kind {
            case .serverError: oauth = OAuthError(.serverError, apiError.message, status: apiError.status)
            default:
                let status: HTTPResponse.Status =
                    [.notFound, .contentTooLarge, .unsupportedMediaType, .methodNotAllowed].contains(apiError.status)
                    ? apiError.status : .badRequest
                oauth = OAuthError(.invalidRequest, apiError.message, status: status)
            }
        }
        let document = OAuthErrorDocument(error: oauth.error, description: oauth.description)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let body = (try? encoder.encode(document)) ?? Data(#"{"error":"server_error"}"#.utf8)
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"]
        if oauth == .invalidToken { headers[.wwwAuthenticate] = #"Bearer error="invalid_token""# }
        if let seconds = oauth.retryAfter { headers[.retryAfter] = "\(seconds)" }
        return Response(status: oauth.status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// A refusal of a console request, as a page: the operator is in a browser.
    static func consoleResponse(for error: APIError) -> Response {
        let message =
            error.status == .contentTooLarge
            ? "The form is larger than the console takes: \(unauthenticatedBodySize) bytes before you sign in, "
                + "\(maximumBodySize) after."
            : error.message
        let main = "<p>\(OAuthPage.escape(message))</p><p><a href=\"\(ConsolePaths.root)\">Back to the console</a></p>"
        return Response(
            status: error.status,
            headers: OAuthPage.headers,
            body: .init(
                byteBuffer: ByteBuffer(string: OAuthPage.document(title: error.status.reasonPhrase, main: main))
            )
        )
    }

    static func response(for error: APIError, requestID: String) -> Response {
        let (headers, body) = errorDocument(for: error, requestID: requestID)
        return Response(status: error.status, headers: headers, body: .init(byteBuffer: body))
    }

    /// The error document of `error`, with the headers that go with it.
    static func errorDocument(for error: APIError, requestID: String) -> (HTTPFields, ByteBuffer) {
        let document = ErrorDocument(
            code: error.code,
            message: error.message,
            requestID: requestID,
            retryAfterSeconds: error.retryAfterSeconds
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let body = (try? encoder.encode(document)) ?? Data(#"{"code":"INTERNAL","message":"error"}"#.utf8)
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        if let seconds = error.retryAfterSeconds { headers[.retryAfter] = "\(seconds)" }
        if let messageCode = error.messageCode { headers[.messageCode] = messageCode.rawValue }
        return (headers, ByteBuffer(bytes: body))
    }
}

extension HTTPField.Name {
    static let requestID = HTTPField.Name("x-request-id")!
    static let messageCode = HTTPField.Name("x-message-code")!
    /// The addresses a request passed through, added to by each proxy.
    static let xForwardedFor = HTTPField.Name("x-forwarded-for")!
    /// How long a browser reaches this host by `https` alone.
    static let strictTransportSecurity = HTTPField.Name("Strict-Transport-Security")!
}
