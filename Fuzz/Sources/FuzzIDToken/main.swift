import Crypto
import Foundation
import FuzzSupport
import GangwayProtocol
import GangwayServerStorage
import Hummingbird
import Logging
import NIOCore
import Synchronization

@testable import GangwayServer

// ID tokens and what else an app's OpenID Connect provider answers, as the server reads
// them (`IdentityProviderClient`): the JWT's header, JWTKit's verification with the
// provider's key set, `ProviderIDToken`'s claims and `ProviderIdentity`'s checks; the
// key set (JWKS), the discovery document and the token endpoint's answer. The provider
// is served on a loopback port by this process.
//
// Modes (first byte):
// 0  the rest as an ID token, checked against a fixed key set (ES256 `es`, RS256 `rs`);
// 1  the rest as the claims (JSON) of a token the provider signed (ES256, `kid` es);
// 2  the rest as the provider's key set, for a token signed by `es` that names its key;
// 3  the same, for a token that names no key;
// 4  the rest as the discovery document;
// 5  the rest as the token endpoint's answer (200), and 6 as its refusal (400).
//
// In the claims and the discovery document, `$ISSUER` stands for the issuer's URL (its
// port is chosen at each run).

runFuzzer(fuzz)

@_cdecl("LLVMFuzzerTestOneInput")
func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let (mode, rest) = FuzzInput(start, count).mode(of: 7) else { return 0 }
    let provider = Provider.shared
    blocking {
        switch mode {
        case 0:
            await provider.identify(rest.text, client: provider.fixedClient, issuer: provider.fixedIssuer)
        case 1:
            let claims = rest.replacingPlaceholder("$ISSUER", with: provider.fixedIssuer)
            await provider.identify(
                Provider.sign(claims: Data(claims), kid: "es"),
                client: provider.fixedClient,
                issuer: provider.fixedIssuer
            )
        case 2, 3:
            provider.served.answers.withLock { $0.jwks = Data(rest) }
            await provider.identify(
                Provider.sign(claims: provider.validClaims, kid: mode == 2 ? "es" : nil),
                client: IdentityProviderClient(now: Provider.now),
                issuer: provider.fuzzIssuer
            )
        case 4:
            let document = rest.replacingPlaceholder("$ISSUER", with: provider.fuzzIssuer)
            provider.served.answers.withLock { $0.discovery = Data(document) }
            _ = try? await IdentityProviderClient(now: Provider.now).metadata(issuer: provider.fuzzIssuer)
        default:
            provider.served.answers.withLock {
                $0.token = Data(rest)
                $0.tokenStatus = mode == 5 ? .ok : .badRequest
            }
            _ = try? await provider.fixedClient.redeem(
                code: "c0de",
                verifier: String(repeating: "v", count: 43),
                redirectURI: "https://checks.airline.example/oauth/callback",
                provider: IdentityProvider(issuer: provider.fuzzIssuer, clientID: "checks"),
                clientSecret: mode == 5 ? nil : "s3cret"
            )
        }
        provider.served.answers.withLock { $0 = Provider.Answers(issuer: provider.fuzzIssuer) }
    }
    return 0
}

/// The provider: two issuers on one loopback port, `/fixed` with the fixed key set and
/// `/fuzz`, whose answers the current input sets.
final class Provider: Sendable {
    struct Answers: Sendable {
        var discovery: Data
        var jwks = Provider.jwks
        var token = Data(#"{"access_token":"a","token_type":"Bearer","id_token":"x.y.z","expires_in":300}"#.utf8)
        var tokenStatus = HTTPResponse.Status.ok

        init(issuer: String) {
            discovery = Provider.discovery(issuer: issuer)
        }
    }

    static let shared = blocking { await Provider() }

    /// The server's clock: a fixed time, for tokens that expire an hour later.
    static let now: @Sendable () -> Date = { Date(timeIntervalSince1970: 1_790_000_000) }

    static let es256 = try! P256.Signing.PrivateKey(rawRepresentation: Data(repeating: 5, count: 32))

    /// What the provider serves, and on which port.
    final class Served: Sendable {
        let answers = Mutex(Answers(issuer: ""))
        let port = Mutex<Int?>(nil)
    }

    let fixedIssuer: String
    let fuzzIssuer: String
    let served: Served
    /// The server's client of the fixed issuer, its discovery and key set fetched once.
    let fixedClient = IdentityProviderClient(now: Provider.now)

    private init() async {
        let served = Served()
        self.served = served
        let started = AsyncStream<Void>.makeStream()
        let router = Router()
        router.get("/:issuer/.well-known/openid-configuration") { _, context in
            let issuer = context.parameters.get("issuer") ?? ""
            let base = "http://127.0.0.1:\(served.port.withLock { $0 } ?? 0)/\(issuer)"
            let body = issuer == "fixed" ? Provider.discovery(issuer: base) : served.answers.withLock { $0.discovery }
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: body)))
        }
        router.get("/:issuer/jwks") { _, context in
            let body = context.parameters.get("issuer") == "fixed" ? Provider.jwks : served.answers.withLock { $0.jwks }
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: body)))
        }
        router.post("/:issuer/token") { _, _ in
            let (status, body) = served.answers.withLock { ($0.tokenStatus, $0.token) }
            return Response(status: status, body: .init(byteBuffer: ByteBuffer(bytes: body)))
        }
        var logger = Logger(label: "fuzz.provider")
        logger.logLevel = .critical
        let application = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                served.port.withLock { $0 = channel.localAddress?.port }
                started.continuation.yield()
            },
            logger: logger
        )
        Task { try await application.runService(gracefulShutdownSignals: []) }
        for await _ in started.stream { break }
        let base = "http://127.0.0.1:\(served.port.withLock { $0 } ?? 0)"
        fixedIssuer = base + "/fixed"
        fuzzIssuer = base + "/fuzz"
        served.answers.withLock { $0 = Answers(issuer: base + "/fuzz") }
        // Fetches the fixed issuer's discovery and keys once, as a running server has.
        await identify(Provider.sign(claims: validClaims, kid: "es"), client: fixedClient, issuer: fixedIssuer)
    }

    /// What the server does with an ID token at the end of a federated sign-in.
    func identify(_ token: String, client: IdentityProviderClient, issuer: String) async {
        let provider = IdentityProvider(issuer: issuer, clientID: "checks")
        guard let identity = try? await client.identity(of: token, provider: provider, nonce: "n-0S6_WzA2Mj") else {
            return
        }
        invariant(identity.issuer == issuer, "an identity is the configured provider's")
        invariant(!identity.subject.isEmpty && identity.subject.utf8.count <= 255, "a subject is 1 to 255 bytes")
    }

    /// Claims that pass every check, for the token of the key set modes.
    var validClaims: Data {
        Data(
            """
            {"iss":"\(fuzzIssuer)","sub":"248289761001","aud":"checks","exp":1790003600,"iat":1790000000,\
            "nonce":"n-0S6_WzA2Mj","email":"alice@airline.example","name":"Alice Martin"}
            """.utf8
        )
    }

    /// A JWS (compact, ES256) over `claims` exactly as given.
    static func sign(claims: Data, kid: String?) -> String {
        let header = kid.map { #"{"alg":"ES256","typ":"JWT","kid":"\#($0)"}"# } ?? #"{"alg":"ES256","typ":"JWT"}"#
        let input = Data(header.utf8).base64URLEncoded + "." + claims.base64URLEncoded
        let signature = try! es256.signature(for: Data(input.utf8)).rawRepresentation
        return input + "." + signature.base64URLEncoded
    }

    static func discovery(issuer: String) -> Data {
        Data(
            """
            {"issuer":"\(issuer)","authorization_endpoint":"\(issuer)/authorize","token_endpoint":"\(issuer)/token",\
            "jwks_uri":"\(issuer)/jwks","response_types_supported":["code"],"subject_types_supported":["public"],\
            "id_token_signing_alg_values_supported":["ES256","RS256"]}
            """.utf8
        )
    }

    /// The fixed key set: the ES256 key the tokens are signed with, and an RSA key.
    static let jwks: Data = {
        let point = es256.publicKey.rawRepresentation
        let x = point.prefix(32).base64URLEncoded
        let y = point.suffix(32).base64URLEncoded
        return Data(
            """
            {"keys":[{"kty":"EC","crv":"P-256","x":"\(x)","y":"\(y)","kid":"es","alg":"ES256","use":"sig"},\
            {"kty":"RSA","kid":"rs","alg":"RS256","use":"sig","e":"AQAB","n":"\(rsaModulus)"}]}
            """.utf8
        )
    }()

    /// An RSA modulus: any odd 2048-bit number reads as a public key, and no token here
    /// is RS256-signed.
    static let rsaModulus = Data([0xC3] + (1..<255).map { UInt8(truncatingIfNeeded: $0 &* 37) } + [0x5B])
        .base64URLEncoded
}
