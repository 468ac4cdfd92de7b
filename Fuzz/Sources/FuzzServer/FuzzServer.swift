import Foundation
import FuzzSupport
import GangwayForms
import GangwayProtocol
import GangwayServerStorage
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOEmbedded
import Synchronization

@testable import GangwayServer

/// A server over a new SQLite database in a temporary directory, whose responder (the
/// gateway middleware, the router, every generated handler and page) a harness calls
/// in-process, as Hummingbird would for a request off the network.
///
/// It holds an app for devices (`checks`: log upload on, entity set `checks` writable)
/// and an `oauth2` app (`oauth`), the user `alice` signed in on the registered device
/// `fuzz-device`, and a device grant waiting for approval.
public final class FuzzServer: Sendable {
    /// One per process, made at its first use.
    public static let shared = blocking { try! await FuzzServer() }

    /// The admin token (the one the server wrote to its file at its first start).
    public let adminToken: String
    /// Alice's session on `checks`, on the registered device.
    public let session: String
    /// The registration of Alice's device.
    public let registrationID: String
    /// The key Alice's device signs its changes with.
    public let authorKey: ChangeSigningKey
    /// The key devices seal changes to.
    public let sealingKey: SealingPublicKey
    /// The device code of a device grant of `oauth`, waiting for approval.
    public let deviceCode: String
    /// Alice's session on `settings`, an app whose settings a harness changes.
    public let settingsSession: String

    let server: MobileServicesServer
    let responder: GatewayResponder
    let channel = NIOAsyncTestingChannel()
    let logger: Logger
    let clock: Clock

    /// Where this process's server keeps its data: removed when the process exits, as
    /// libFuzzer ends a run (a crash leaves it, with the input that made it).
    static let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("gangway-fuzz-\(ProcessInfo.processInfo.processIdentifier)")

    private init() async throws {
        let directory = Self.directory
        // A directory of an earlier process with this ID (which crashed) is not reused.
        try? FileManager.default.removeItem(at: directory)
        atexit { try? FileManager.default.removeItem(at: FuzzServer.directory) }
        var logger = Logger(label: "gangway.fuzz")
        logger.logLevel = .critical
        self.logger = logger
        let clock = Clock()
        self.clock = clock
        let server = try await MobileServicesServer(
            configuration: ServerConfiguration(
                dataDirectory: directory,
                bcryptCost: 4,
                // Sessions outlive any run, however far the clock is moved.
                sessionLifetime: .seconds(100 * 365 * 24 * 3600)
            ),
            logger: logger,
            now: { clock.now.withLock { $0 } }
        )
        self.server = server
        responder = try server.responder(publicURL: PublicURL("http://127.0.0.1:8080"))
        sealingKey = server.keys.changeSealing.publicKey
        let authorKey = try ChangeSigningKey(rawRepresentation: Data(repeating: 9, count: 32))
        self.authorKey = authorKey

        adminToken = try String(contentsOf: server.configuration.adminTokenPath, encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        // The set-up goes through the API's own handlers, as a seed does, with a one-time
        // admin token.
        let admin = BearerToken.make()
        let api = server.api(publicURL: PublicURL("http://127.0.0.1:8080"), adminToken: .hash(BearerToken.hash(admin)))
        let asAdmin = RequestInfo(requestID: "fuzz-setup", peer: nil, bearerToken: admin)
        try await RequestInfo.$current.withValue(asAdmin) {
            _ = try await api.createApp(
                body: .json(
                    .init(
                        appID: "checks",
                        name: "Ground checks",
                        settings: .init(
                            logSettings: .init(logEnabled: true, maxEntriesPerUpload: 1000),
                            dataSettings: .init(
                                entitySets: .init(additionalProperties: [
                                    "checks": .init(writableFields: ["status", "note", "stand"], allowsCreation: true)
                                ])
                            )
                        )
                    )
                )
            )
            _ = try await api.createApp(body: .json(.init(appID: "oauth", name: "Ramp tablets")))
            _ = try await api.createApp(body: .json(.init(appID: "settings", name: "Cabin checks")))
            _ = try await api.setAppAuthentication(
                path: .init(appID: "oauth"),
                body: .json(
                    .init(
                        _type: .oauth2,
                        redirectURIs: [
                            "com.airline.checks:/oauth2redirect", "http://127.0.0.1/callback",
                            "https://checks.airline.example/oauth/callback",
                        ]
                    )
                )
            )
            _ = try await api.createUser(
                body: .json(.init(username: "alice", password: "alice-password", displayName: "Alice Martin"))
            )
        }
        let signedIn = try await RequestInfo.$current.withValue(
            RequestInfo(requestID: "fuzz-setup", peer: nil, bearerToken: nil)
        ) {
            try await api.signIn(
                path: .init(appID: "checks"),
                body: .json(.init(username: "alice", password: "alice-password", deviceID: "fuzz-device"))
            )
        }
        let session = try signedIn.created.body.json.token
        self.session = session
        settingsSession = try await RequestInfo.$current.withValue(
            RequestInfo(requestID: "fuzz-setup", peer: nil, bearerToken: nil)
        ) {
            try await api.signIn(
                path: .init(appID: "settings"),
                body: .json(.init(username: "alice", password: "alice-password", deviceID: "fuzz-settings"))
            )
        }.created.body.json.token
        let registered = try await RequestInfo.$current.withValue(
            RequestInfo(requestID: "fuzz-setup", peer: nil, bearerToken: session)
        ) {
            try await api.registerDevice(
                path: .init(appID: "checks", deviceID: "fuzz-device"),
                body: .json(
                    .init(
                        deviceName: "Stand 12 tablet",
                        platform: "linux",
                        appVersion: "1.0.0",
                        changeKey: authorKey.verifyingKey.x963Representation.base64URLEncoded
                    )
                )
            )
        }
        registrationID = try registered.ok.body.json.registrationID
        let grant = try await RequestInfo.$current.withValue(
            RequestInfo(requestID: "fuzz-setup", peer: nil, bearerToken: nil)
        ) {
            try await api.authorizeDevice(path: .init(appID: "oauth"), body: .urlEncodedForm(.init(clientId: "oauth")))
        }
        deviceCode = try grant.ok.body.json.deviceCode
    }

    /// What the server answered.
    public struct Reply: Sendable {
        public var status: HTTPResponse.Status
        public var headers: HTTPFields
        public var body: [UInt8]
    }

    /// The server's answer to a request, as Hummingbird would hand it over (the body whole).
    ///
    /// No request, whatever it holds, makes the server fail: a 500 stops the run.
    @discardableResult
    public func send(
        _ method: HTTPRequest.Method,
        _ path: String,
        headers: HTTPFields = [:],
        body: [UInt8] = []
    ) async -> Reply {
        var headers = headers
        headers[.contentLength] = String(body.count)
        let request = Request(
            head: HTTPRequest(
                method: method,
                scheme: "http",
                authority: "127.0.0.1:8080",
                path: path,
                headerFields: headers
            ),
            body: RequestBody(buffer: ByteBuffer(bytes: body))
        )
        let context = ServerContext(source: ApplicationRequestContextSource(channel: channel, logger: logger))
        let response: Response
        do {
            response = try await responder.respond(to: request, context: context)
        } catch {
            invariant(false, "the responder answers every request (it threw \(type(of: error)))")
            return Reply(status: .internalServerError, headers: [:], body: [])
        }
        let collected = CollectedBody()
        do {
            try await response.body.write(BodyCollector(collected: collected))
        } catch {
            invariant(false, "a response body is written whole (\(type(of: error)))")
        }
        invariant(
            response.status != .internalServerError,
            "malformed input is a 4xx, never a 500 (\(method) \(path.prefix { $0 != "?" }))"
        )
        return Reply(status: response.status, headers: response.headers, body: collected.bytes.withLock { $0 })
    }

    /// A browser that opened the `oauth` app's sign-in page: its cookie (a `Cookie`
    /// field's value) and the page's anti-forgery token, so that its forms get past
    /// `FormGuard` to what reads them.
    public static let pageBrowser: (cookie: String, formToken: String) = blocking {
        let page = await shared.send(
            .get,
            "/apps/oauth/oauth/authorize?client_id=oauth&redirect_uri=com.airline.checks%3A%2Foauth2redirect"
                + "&response_type=code&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
                + "&code_challenge_method=S256"
        )
        let cookie = page.headers[.setCookie]?.split(separator: ";").first.map(String.init) ?? ""
        let html = String(decoding: page.body, as: UTF8.self)
        let marker = #"name="form_token" value=""#
        let token = html.range(of: marker).map { html[$0.upperBound...].prefix { $0 != "\"" } }.map(String.init)
        invariant(!cookie.isEmpty && token != nil, "the sign-in page gives a browser its cookie and form token")
        return (cookie, token ?? "")
    }

    /// Moves the server's clock on, so that throttles and lifetimes pass.
    public func advanceClock(by seconds: TimeInterval) {
        clock.now.withLock { $0 = $0.addingTimeInterval(seconds) }
    }

    /// A request's headers: a body's media type and a bearer token.
    public static func headers(contentType: String? = nil, token: String? = nil) -> HTTPFields {
        var fields = HTTPFields()
        if let contentType { fields[.contentType] = contentType }
        if let token { fields[.authorization] = "Bearer \(token)" }
        return fields
    }
}

/// The server's clock, which a harness moves on.
final class Clock: Sendable {
    let now = Mutex(Date(timeIntervalSince1970: 1_790_000_000))
}

private final class CollectedBody: Sendable {
    let bytes = Mutex<[UInt8]>([])
}

/// Collects a response body.
private struct BodyCollector: ResponseBodyWriter {
    let collected: CollectedBody

    func write(_ buffer: ByteBuffer) async throws {
        collected.bytes.withLock { $0 += buffer.readableBytesView }
    }

    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
