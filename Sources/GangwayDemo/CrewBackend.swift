import Foundation
import GangwayServer
import GangwaySystem
import GangwayTerminal
import Hummingbird
import JWTKit
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The demo airline's own backend: the crew roster and the shift's hand-over notes,
/// reached by the demo app through its destination `crew` as the signed-in person. It is
/// a company backend, not Gangway's: it knows nobody's password or session, and believes
/// only the identity the server forwards, which it verifies as any backend would, with
/// the keys the server publishes (`/apps/checks/destination-keys`): ES256, the app's
/// issuer, its own URL as the audience, not expired.
///
/// Its routes are GangwayTerminal's `CrewAPI`, which the device app reads them by.
///
/// It keeps everything in memory, and listens on a loopback port of its own while the
/// demo's server runs (`gangway serve --demo`, or the app's embedded server).
public final class CrewBackend: Sendable {
    static let notesKept = 50

    /// Each demo user's shift; anyone else has none today.
    static let shifts: [String: (hours: String, stands: [String])] = [
        "alice": ("06:00-14:00", ["12", "14"]),
        "bob": ("14:00-22:00", ["14"]),
    ]

    /// What the backend needs from the server once it listens: where its keys are, and
    /// the app's issuer.
    struct Trust: Sendable {
        var keys: URL
        var issuer: String
    }

    private struct State: Sendable {
        var trust: Trust?
        var keys: JWTKeyCollection?
        var notes: [CrewAPI.Note] = []
    }

    private let state = Mutex(State())
    private let logger: Logger
    private let now: @Sendable () -> Date

    public init(logger: Logger, now: @escaping @Sendable () -> Date = WallClock.now) {
        self.logger = logger
        self.now = now
    }

    /// Trusts the identities the server at `server` signs for the app `appID`, whose
    /// issuer is `issuer`.
    func trust(server: URL, appID: String, issuer: String) {
        let keys = server.appendingPathComponent("apps").appendingPathComponent(appID)
            .appendingPathComponent("destination-keys")
        state.withLock { $0 = State(trust: Trust(keys: keys, issuer: issuer), keys: nil, notes: $0.notes) }
    }

    /// The identity a request carries, verified; `nil` when it carries none that holds.
    private func identity(_ request: Request, audience: String) async -> DestinationIdentity? {
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else { return nil }
        let token = String(header.dropFirst("Bearer ".count))
        guard let trust = state.withLock({ $0.trust }) else { return nil }
        for refetch in [false, true] {
            guard let keys = await keys(trust, refetch: refetch) else { return nil }
            do {
                let identity = try await keys.verify(token, as: DestinationIdentity.self)
                guard identity.iss.value == trust.issuer, identity.aud.value.contains(audience) else { return nil }
                return identity
            } catch let error as JWTError where error.errorType == .unknownKID && !refetch {
                continue  // the server may have a new key: fetch the set again, once
            } catch {
                // The kind of failure only: an error's text could quote the token.
                logger.notice("crew backend refused a token", metadata: ["reason": "\(type(of: error))"])
                return nil
            }
        }
        return nil
    }

    private func keys(_ trust: Trust, refetch: Bool) async -> JWTKeyCollection? {
        if !refetch, let kept = state.withLock({ $0.keys }) { return kept }
        do {
            let (body, answer) = try await URLSession.shared.data(from: trust.keys)
            guard (answer as? HTTPURLResponse)?.statusCode == 200 else { return nil }
            let keys = try await JWTKeyCollection().add(jwksJSON: String(decoding: body, as: UTF8.self))
            state.withLock { $0.keys = keys }
            return keys
        } catch {
            logger.notice("crew backend could not read the server's keys", metadata: ["reason": "\(error)"])
            return nil
        }
    }

    /// The routes, for a backend reached at `url`.
    func router(url: @escaping @Sendable () -> String) -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/roster") { [self] request, _ -> Response in
            guard let who = await identity(request, audience: url()) else { return Self.refused() }
            let shift = Self.shifts[who.sub.value]
            let roster = CrewAPI.Roster(
                user: who.sub.value,
                name: who.name,
                shift: shift?.hours,
                stands: shift?.stands ?? [],
                notes: state.withLock { $0.notes }
            )
            return try Self.json(roster, status: .ok)
        }
        router.post("/notes") { [self] request, _ -> Response in
            guard let who = await identity(request, audience: url()) else { return Self.refused() }
            let body = try await request.body.collect(upTo: CrewAPI.noteLimit * 4 + 1)
            let text = String(buffer: body).trimmingCharacters(in: .whitespacesAndNewlines)
            guard !text.isEmpty, text.count <= CrewAPI.noteLimit else {
                return try Self.json(
                    ["error": "A note is 1 to \(CrewAPI.noteLimit) characters."],
                    status: .badRequest
                )
            }
            let note = CrewAPI.Note(by: who.sub.value, name: who.name, text: text, at: now())
            state.withLock { state in
                state.notes.append(note)
                state.notes = Array(state.notes.suffix(Self.notesKept))
            }
            return try Self.json(note, status: .created)
        }
        return router
    }

    private static func refused() -> Response {
        Response(
            status: .unauthorized,
            headers: [.contentType: "application/json", .wwwAuthenticate: "Bearer"],
            body: .init(
                byteBuffer: ByteBuffer(string: #"{"error":"This backend takes only a person Gangway signed in."}"#)
            )
        )
    }

    private static func json(_ value: some Encodable, status: HTTPResponse.Status) throws -> Response {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = .sortedKeys
        return Response(
            status: status,
            headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: try encoder.encode(value)))
        )
    }

    /// Listens on a free loopback port while `body` runs with the backend's URL, then stops.
    public func serving<Result: Sendable>(_ body: (URL) async throws -> Result) async throws -> Result {
        let bound = AsyncStream<Int>.makeStream()
        let address = Mutex("")
        let application = Application(
            router: router(url: { address.withLock { $0 } }),
            configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: nil),
            onServerRunning: { channel in
                bound.continuation.yield(channel.localAddress?.port ?? 0)
                bound.continuation.finish()
            },
            logger: logger
        )
        let services = ServiceGroup(
            configuration: .init(services: [application], gracefulShutdownSignals: [], logger: logger)
        )
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                // A backend that cannot listen ends the wait for its port.
                defer { bound.continuation.finish() }
                try await services.run()
            }
            var ports = bound.stream.makeAsyncIterator()
            guard let port = await ports.next(), port > 0 else {
                try await group.next()
                throw CancellationError()
            }
            let url = URL(string: "http://127.0.0.1:\(port)")!
            address.withLock { $0 = url.absoluteString }
            do {
                let result = try await body(url)
                // Requests in flight are answered; then it stops.
                await services.triggerGracefulShutdown()
                try await group.waitForAll()
                return result
            } catch {
                await services.triggerGracefulShutdown()
                try? await group.waitForAll()
                throw error
            }
        }
    }
}
