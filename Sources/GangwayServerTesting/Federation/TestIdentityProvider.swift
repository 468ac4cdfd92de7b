import AsyncHTTPClient
import Foundation
import GangwayServerStorage
import GangwaySystem
import GangwayTesting
import NIOCore
import NIOHTTP1

#if canImport(Glibc)
    import Glibc
#endif

/// A real OpenID Connect provider on loopback for federation tests: the third-party
/// `oidc-provider-mock` (PyPI, pinned in `Tests/Fixtures/oidc/requirements.txt`), run by
/// `Tests/Fixtures/oidc/oidc_provider.py`, which adds what the tests need and the mock
/// lacks (PKCE checks, key rotation, a tampered ID token, revocation).
///
/// The provider signs in whoever the test names: ``signIn(at:subject:)`` sends its
/// authorization form with that subject, as a person would after typing their password
/// there. It needs Python 3.12 or later with the pinned packages, in a virtual
/// environment at `.build-oidc/venv` in the package (`.ci/run` makes it). No environment
/// variable points it elsewhere: what the tests run is decided by the checkout alone.
public struct TestIdentityProvider: Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// The provider's issuer URL, exactly as it writes it in its tokens.
    public let issuer: String
    private let process: Process
    /// Kept open while the provider runs: the provider ends when it closes, so a test
    /// process that dies leaves no provider behind.
    private let input: Pipe

    private static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The Python with the provider's packages; `nil` when there is none.
    public static var python: String? {
        let path = packageRoot.appendingPathComponent(".build-oidc/venv/bin/python").path
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }

    /// Whether the provider can run here; tests that need it are skipped, and say so, when not.
    public static var isInstalled: Bool { python != nil }

    /// Starts a provider that requires PKCE (S256) and a nonce.
    ///
    /// - Parameter tokenLifetime: Seconds its access and ID tokens live.
    /// - Parameter omitsKeyIDs: Publishes its keys and signs without key IDs (`kid`), as
    ///   some providers do.
    public static func start(
        tokenLifetime: Int = 3600,
        omitsKeyIDs: Bool = false
    ) async throws
        -> TestIdentityProvider
    {
        guard let python else { throw Failure(description: "no Python with oidc-provider-mock; run .ci/run") }
        let ready = FixtureStart.readyPath("gangway-oidc")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments =
            [
                packageRoot.appendingPathComponent("Tests/Fixtures/oidc/oidc_provider.py").path,
                "--exit-on-stdin-eof", "--require-pkce", "--require-nonce", "--ready-file", ready,
                "--token-max-age", "\(tokenLifetime)",
            ] + (omitsKeyIDs ? ["--no-kid"] : [])
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard let issuer = try await FixtureStart.firstLine(of: process, ready: ready) else {
            throw Failure(description: "the OpenID provider did not start")
        }
        return TestIdentityProvider(issuer: issuer, process: process, input: input)
    }

    /// Runs `body` with a provider of its own, ended however `body` ends.
    public static func using<Result: Sendable>(
        tokenLifetime: Int = 3600,
        omitsKeyIDs: Bool = false,
        _ body: (TestIdentityProvider) async throws -> Result
    ) async throws -> Result {
        let provider = try await start(tokenLifetime: tokenLifetime, omitsKeyIDs: omitsKeyIDs)
        do {
            let result = try await body(provider)
            await provider.stop()
            return result
        } catch {
            await provider.stop()
            throw error
        }
    }

    /// Ends the provider.
    public func stop() async {
        try? input.fileHandleForWriting.close()
        kill(process.processIdentifier, SIGTERM)
        // Waited for on a thread of its own, killed after two seconds: never a loop of
        // sleeps, which a cancelled task runs without pause.
        try? await process.exit(within: .seconds(2))
    }

    // MARK: A person at the provider

    /// Signs `subject` in on the provider's authorization page at `url` (where a relying
    /// party sent the browser) and returns where the provider sends the browser next:
    /// the relying party's redirect URI, with a code or an error.
    public func signIn(at url: String, subject: String) async throws -> String {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        let value = subject.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? subject
        request.body = .bytes(ByteBuffer(string: "sub=\(value)"))
        let response = try await Self.client.execute(request, timeout: .seconds(20))
        guard (300..<400).contains(response.status.code), let location = response.headers.first(name: "Location")
        else { throw Failure(description: "the provider's authorization page answered \(response.status.code)") }
        return location
    }

    /// Cancels on the provider's authorization page: the browser goes back with
    /// `access_denied`.
    public func deny(at url: String) async throws -> String {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(ByteBuffer(string: "action=deny"))
        let response = try await Self.client.execute(request, timeout: .seconds(20))
        guard let location = response.headers.first(name: "Location") else {
            throw Failure(description: "the provider's authorization page answered \(response.status.code)")
        }
        return location
    }

    /// Sets the claims the provider gives `subject` (its name, email address, a list of
    /// stations…): texts, or lists of texts, as JSON.
    public func setClaims(_ claims: [String: any Sendable], of subject: String) async throws {
        try await send("PUT", "/users/\(Self.pathSegment(subject))", claims)
    }

    /// Ends every token the provider gave `subject`, as when the person is blocked or
    /// signs out everywhere: a refresh with them is refused from now on.
    public func revokeTokens(of subject: String) async throws {
        try await send("POST", "/users/\(Self.pathSegment(subject))/revoke-tokens", nil)
    }

    // MARK: The provider's keys and tokens

    /// Signs with a new key from now on (of `algorithm`, `RS256` or `ES256`, or the same
    /// as before); the old one stays published when `keepingOld`.
    public func rotateKey(keepingOld: Bool = false, algorithm: String? = nil) async throws {
        var body: [String: any Sendable] = ["keep_old": keepingOld]
        if let algorithm { body["alg"] = algorithm }
        try await send("POST", "/_test/rotate-key", body)
    }

    /// How the next ID token the provider issues is spoiled, once.
    public enum Spoil: Sendable {
        /// These claims replace the real ones (`aud`, `nonce`, `iss`, `exp`…), as JSON
        /// values (text, numbers).
        case claims([String: any Sendable])
        /// Signed with a key the provider never published.
        case unpublishedKey
        /// Not signed at all (`alg: none`).
        case unsigned
        /// "Signed" with HS256, keyed with the provider's public key.
        case hmacWithPublicKey
    }

    public func spoilNextIDToken(_ spoil: Spoil) async throws {
        switch spoil {
        case .claims(let claims): try await send("POST", "/_test/next-id-token", ["claims": claims])
        case .unpublishedKey: try await send("POST", "/_test/next-id-token", ["sign_with": "unpublished"])
        case .unsigned: try await send("POST", "/_test/next-id-token", ["sign_with": "none"])
        case .hmacWithPublicKey: try await send("POST", "/_test/next-id-token", ["sign_with": "hmac-public-key"])
        }
    }

    // MARK: HTTP

    /// Follows no redirect: the tests read where the provider sends the browser.
    private static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    private static func pathSegment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }

    private func send(_ method: String, _ path: String, _ body: [String: any Sendable]?) async throws {
        var request = HTTPClientRequest(url: issuer + path)
        request.method = HTTPMethod(rawValue: method)
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
        }
        let response = try await Self.client.execute(request, timeout: .seconds(20))
        guard (200..<300).contains(response.status.code) else {
            throw Failure(description: "\(method) \(path) answered \(response.status.code)")
        }
    }
}
