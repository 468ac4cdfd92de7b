import AsyncHTTPClient
import Foundation
import GangwayProtocol
import GangwayServerStorage
import Logging
import NIOCore
import NIOHTTP1
import Tracing

/// Delivers one device's change to the company's backend, as its author, and says how the
/// backend answered (``GangwayServerStorage/DeliveryOutcome``).
///
/// - The change goes to its set's data source: `PATCH {URL}{path}('{ID}')` with the fields
///   it sets, or, for a change that creates its entity, `POST {URL}{path}` with the key
///   property too; with `Prefer: return=representation`. Values are typed by the set's
///   schema (an integer or a decimal as a JSON number, a boolean as `true`/`false`), text
///   otherwise.
/// - It carries `Idempotency-Key: {change ID}`: sent again (after a timeout, a 5xx, a
///   server that stopped between the backend's answer and its own commit), the backend
///   sees one change. An identity destination gets the author's token
///   (``DestinationIdentity``: `sub` the author, `registration` theirs), so the backend
///   decides as it would for them.
/// - 2xx: taken; the backend's entity (or, for 204, the server's with the change's
///   fields) becomes the server's. 400, 403, 404, 409, 412, 422: refused for good, with
///   the backend's OData error code and message for the author. Anything else (the
///   backend down, 401, 429, 5xx): tried again after ``retryDelay(after:random:)``,
///   parked after ``attempts`` attempts.
struct ChangeDelivery: Sendable {
    let services: APIServices
    let issuer: @Sendable (AppRecord) -> String

    /// How long the backend has to answer.
    static let timeout: TimeAmount = .seconds(10)
    /// Attempts before a delivery is parked for an operator.
    static let attempts = 8
    /// The largest answer read.
    static let answerLimit = 1 << 20

    /// How long to wait after the `attempt`th failure (from 1): doubling from a second,
    /// at most five minutes, times a random factor from 0.5 to 1 (`random`, from 0 to 1),
    /// so deliveries that failed together do not come back together.
    static func retryDelay(after attempt: Int, random: Double) -> TimeInterval {
        let base = min(300, pow(2, Double(max(0, attempt - 1))))
        return base * (0.5 + random / 2)
    }

    /// What a delivery needs of its app, once per claim.
    struct Target: Sendable {
        var app: AppRecord
        var source: DataSourceRecord
        var destination: DestinationRecord
        var schema: EntitySchema?
    }

    /// Delivers `delivery` to `target`; how the backend answered.
    func deliver(_ delivery: DeliveryRecord, to target: Target, random: Double) async -> DeliveryOutcome {
        // A trace of its own: the device's request that made the change has long ended.
        await services.tracer.withSpan(
            delivery.change.creates ? "POST change delivery" : "PATCH change delivery",
            ofKind: .client,
            context: .topLevel,
            attributes: { attributes in
                attributes["http.request.method"] = delivery.change.creates ? "POST" : "PATCH"
                attributes["gangway.app"] = target.app.id
                attributes["gangway.entity_set"] = delivery.change.entitySet
                attributes["gangway.destination"] = target.destination.name
            }
        ) { span in
            let outcome = await send(delivery, to: target, random: random)
            switch outcome {
            case .accepted: span?.attributes["gangway.delivery.outcome"] = "accepted"
            case .refused: span?.attributes["gangway.delivery.outcome"] = "refused"
            case .failed:
                span?.attributes["gangway.delivery.outcome"] = "failed"
                span?.setStatus(SpanStatus(code: .error))
            }
            return outcome
        }
    }

    /// ``deliver(_:to:random:)``, in its span.
    private func send(_ delivery: DeliveryRecord, to target: Target, random: Double) async -> DeliveryOutcome {
        let change = delivery.change
        let failed = { (reason: String) -> DeliveryOutcome in
            let attempt = delivery.attempts + 1
            return .failed(
                reason: reason,
                retryAt: services.now().addingTimeInterval(Self.retryDelay(after: attempt, random: random)),
                park: attempt >= Self.attempts
            )
        }
        let base = DestinationProxy.url(target.destination.url, target.source.path, query: nil)
        let url = change.creates ? base : base + "('" + Self.key(change.entityID) + "')"
        var request = HTTPClientRequest(url: url)
        request.method = change.creates ? .POST : .PATCH
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "Accept", value: "application/json")
        for header in services.tracer.onwardHeaders(RequestTrace.new()) {
            request.headers.add(name: header.name, value: header.value)
        }
        request.headers.add(name: "OData-MaxVersion", value: "4.01")
        request.headers.add(name: "Prefer", value: "return=representation")
        request.headers.add(name: "Idempotency-Key", value: change.id.lowercasedText)
        switch target.destination.authentication {
        case .identity:
            let user = try? await services.storage.cachedUser(named: change.author)
            let identity = DestinationIdentity(
                issuer: issuer(target.app),
                audience: target.destination.url,
                username: change.author,
                displayName: user?.displayName ?? change.author,
                app: target.app.id,
                registration: change.registrationID,
                at: services.now()
            )
            guard let token = try? await services.keys.destinationTokens.signer(at: identity.issuedAt).sign(identity)
            else {
                return failed("The author's identity could not be signed.")
            }
            request.headers.add(name: "Authorization", value: "Bearer " + token)
        case .credential:
            guard let credential = DestinationProxy.credential(of: target.destination, keys: services.keys) else {
                return failed("The destination's credential does not open with the server key.")
            }
            request.headers.add(name: credential.name, value: credential.value)
        }
        var body = Dictionary(
            uniqueKeysWithValues: change.fields.map { name, value in
                (name, Self.typed(value, as: target.schema?.fields.first { $0.name == name }?.type))
            }
        )
        if change.creates { body[target.source.keyProperty] = Self.typed(change.entityID, as: nil) }
        request.body = .bytes(ByteBuffer(bytes: Self.object(body)))
        let response: HTTPClientResponse
        let answer: ByteBuffer
        do {
            response = try await DestinationProxy.client.execute(request, timeout: Self.timeout)
            answer = try await response.body.collect(upTo: Self.answerLimit)
        } catch {
            return failed("The backend could not be reached.")
        }
        let status = Int(response.status.code)
        switch status {
        case 200..<300:
            if status != 204, !answer.readableBytesView.isEmpty {
                let entity = answer.readableBytesView.withUnsafeBytes {
                    ODataPage.entity($0, keyProperty: target.source.keyProperty)
                }
                if let entity { return .accepted(fields: entity.fields) }
            }
            // No entity back: the server's, with the change's fields.
            let current = try? await services.storage.entities(
                appID: target.app.id,
                entitySet: change.entitySet,
                ids: [change.entityID]
            ).first
            return .accepted(fields: (current?.fields ?? [:]).merging(change.fields) { $1 })
        case 400, 403, 404, 409, 412, 422:
            let error = answer.readableBytesView.withUnsafeBytes { ODataPage.error($0) }
            let code = error.map { Self.code($0.code) } ?? "BACKEND_REFUSED"
            let message = error.map { TextRules.escapingControls(String($0.message.prefix(500)), keepingLines: false) }
            return .refused(
                ChangeRejection(
                    .init(rawValue: code),
                    message.flatMap { $0.isEmpty ? nil : $0 } ?? "The company's backend refused the change (\(status))."
                )
            )
        default:
            return failed("The backend answered \(status).")
        }
    }

    /// An entity key as an OData key literal's inside: a quote doubled, the rest
    /// percent-encoded where a path segment needs it.
    static func key(_ id: String) -> String {
        let quoted = id.replacingOccurrences(of: "'", with: "''")
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/?#")
        return quoted.addingPercentEncoding(withAllowedCharacters: allowed) ?? quoted
    }

    /// A backend's error code as a change's rejection code: capitals, digits and `_`, at
    /// most 64; `BACKEND_REFUSED` for any other.
    static func code(_ text: String) -> String {
        let allowed = text.unicodeScalars.allSatisfy {
            ("A"..."Z").contains($0) || ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_"
        }
        guard allowed, (1...64).contains(text.count) else { return "BACKEND_REFUSED" }
        return text
    }

    /// A field's value as JSON: a number or a boolean when the schema types it so and the
    /// text is one, a string otherwise.
    static func typed(_ value: String, as type: FieldType?) -> [UInt8] {
        var bytes: [UInt8] = []
        switch type {
        case .integer?, .decimal?:
            if type?.accepts(value) == true { return Array(value.utf8) }
        case .boolean?:
            if value == "true" || value == "false" { return Array(value.utf8) }
        default:
            break
        }
        JSONBytes.string(value, into: &bytes)
        return bytes
    }

    /// A JSON object of members already written as JSON.
    static func object(_ members: [String: [UInt8]]) -> [UInt8] {
        var bytes: [UInt8] = [UInt8(ascii: "{")]
        for (index, (name, value)) in members.sorted(by: { $0.key < $1.key }).enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONBytes.string(name, into: &bytes)
            bytes.append(UInt8(ascii: ":"))
            bytes.append(contentsOf: value)
        }
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }
}
