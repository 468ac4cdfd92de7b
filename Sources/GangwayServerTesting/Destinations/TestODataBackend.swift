import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// A company's OData v4 service on loopback for data source tests, not Gangway's code:
/// `Tests/Fixtures/odata/backend.py`, an entity set `Checks` (key `ID`) with change
/// tracking (next links, delta links, removed entities, expired tokens), which serves only
/// a Gangway server's identity token (checked with PyJWT against the server's published
/// keys) or its API key. It runs in the same virtual environment as
/// ``TestIdentityProvider``, which `.ci/run` makes.
public struct TestODataBackend: Sendable {
    /// The service root (`…/odata`): the destination's URL, and the audience it accepts.
    public let url: String
    private let process: Process
    private let input: Pipe

    private static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Tests/Fixtures/odata/backend.py")

    /// Whether the service can run here.
    public static var isInstalled: Bool { TestIdentityProvider.python != nil }

    /// Runs `body` with a service that trusts tokens of `issuer` signed by the keys at
    /// `jwks`, and the API key `apiKey`, ended however `body` ends.
    public static func using<Result: Sendable>(
        jwks: String,
        issuer: String,
        apiKey: String? = nil,
        _ body: (TestODataBackend) async throws -> Result
    ) async throws -> Result {
        var arguments = ["--jwks", jwks, "--issuer", issuer]
        if let apiKey { arguments += ["--api-key", apiKey] }
        let (url, process, input) = try await TestDestinationBackend.launch(
            script: script,
            arguments: arguments,
            what: "the OData service"
        )
        let backend = TestODataBackend(url: url, process: process, input: input)
        do {
            let result = try await body(backend)
            await TestDestinationBackend.stop(process, input)
            return result
        } catch {
            await TestDestinationBackend.stop(process, input)
            throw error
        }
    }

    /// Puts `count` more checks, as the company would.
    public func load(_ count: Int) async throws {
        _ = try await control("load", ["count": count])
    }

    /// Puts these entities (each with its `ID`) and removes these IDs, as the company would.
    public func change(put entities: [[String: any Sendable]] = [], remove ids: [String] = []) async throws {
        _ = try await control("change", ["put": entities, "remove": ids])
    }

    /// Makes every delta link given so far expire: it answers 410 Gone.
    public func expireDeltaLinks() async throws {
        _ = try await control("expire", [:])
    }

    /// Makes each write wait `milliseconds` before it is applied and answered.
    public func slow(milliseconds: Int) async throws {
        _ = try await control("slow", ["ms": milliseconds])
    }

    /// Makes each page's next link the page itself, as a broken service does (`on`), or
    /// not.
    public func loop(_ on: Bool = true) async throws {
        _ = try await control("loop", ["on": on])
    }

    /// Makes each write that applies wait `milliseconds` once applied before it is
    /// answered, as a service whose answer is on its way when its caller stops; a write
    /// sent again with its idempotency key is answered at once.
    public func hold(milliseconds: Int) async throws {
        _ = try await control("hold", ["ms": milliseconds])
    }

    /// Answers the next `count` writes to the set with `status`, applying nothing
    /// (`failures` in ``stats()`` lists their idempotency keys).
    public func fail(_ count: Int, status: Int = 503) async throws {
        _ = try await control("fail", ["count": count, "status": status])
    }

    /// What the service saw: `requests`, `pages`, `subjects` (who each served request
    /// was), `refused` (requests without a credential it takes), `prefer` (each page's
    /// `Prefer`).
    public func stats() async throws -> [String: Any] {
        let root = String(url.dropLast("/odata".count))
        let response = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: root + "/control/stats"),
            timeout: .seconds(30)
        )
        let body = try await response.body.collect(upTo: 64 << 20)
        return try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any] ?? [:]
    }

    private func control(_ name: String, _ document: [String: Any]) async throws -> Int {
        let root = String(url.dropLast("/odata".count))
        var request = HTTPClientRequest(url: root + "/control/" + name)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: Array(try JSONSerialization.data(withJSONObject: document))))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        _ = try await response.body.collect(upTo: 1 << 20)
        guard response.status == .ok else {
            throw TestDestinationBackend.Failure(description: "the OData service refused \(name): \(response.status)")
        }
        return Int(response.status.code)
    }
}
