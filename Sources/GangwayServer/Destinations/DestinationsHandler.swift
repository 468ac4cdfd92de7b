import Foundation
import GangwayProtocol
import GangwayServerStorage
import HTTPTypes
import Logging
import OpenAPIRuntime

/// The app's destinations to the company's backends (`gangway admin destinations`).
struct DestinationsHandler: APIHandler {
    let services: APIServices

    /// How far back a destination's listing counts its requests.
    static let destinationCountDays = 7

    /// What a destination's fixed credential is sealed to: opened for another destination,
    /// it fails.
    static func destinationCredentialPurpose(appID: String, name: String) -> String {
        "destination-credential:\(appID)/\(name)"
    }

    /// The scheme, host and port of `url`, in lower case, the port said even when it is
    /// the scheme's own.
    static func origin(_ url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            let host = components.host?.lowercased()
        else { return nil }
        let port = components.port ?? (scheme == "https" ? 443 : 80)
        return "\(scheme)://\(host):\(port)"
    }

    func listDestinations(
        _ input: Operations.ListDestinations.Input
    ) async throws -> Operations.ListDestinations.Output {
        let app = try await app(input.path.appID)
        let destinations = try await perform { try await storage.destinations(appID: app.id) }
        let since = now().addingTimeInterval(-TimeInterval(Self.destinationCountDays * 86_400))
        let counts = try await perform { try await storage.destinationRequests(appID: app.id, since: since) }
        return .ok(.init(body: .json(destinations.map { Self.wire($0, requests: counts[$0.name] ?? [:]) })))
    }

    func putDestination(_ input: Operations.PutDestination.Input) async throws -> Operations.PutDestination.Output {
        guard case .json(let body) = input.body else { throw APIError.badRequest("Send the body as JSON.") }
        let app = try await app(input.path.appID)
        let name = input.path.name
        try Validation.identifier(name, "name")
        guard IssuerURL.isValid(body.url) else {
            throw APIError.badRequest(
                "url must be an https URL (http only on a loopback address), with no query, fragment or user "
                    + "information.",
                code: .invalidField
            )
        }
        if settings.publicDestinationsOnly, let refusal = await DestinationAddresses.refusal(body.url) {
            throw APIError.badRequest(refusal, code: .invalidField)
        }
        let existing = try await perform { try await storage.destination(appID: app.id, name: name) }
        let authentication = DestinationRecord.Authentication(body.authentication ?? .identity)
        var header: String?
        var sealed: Data?
        switch authentication {
        case .identity:
            guard body.credential == nil, body.credentialHeader == nil else {
                throw APIError.badRequest(
                    "credential and credentialHeader go with authentication credential only.",
                    code: .invalidField
                )
            }
        case .credential:
            let same = existing?.authentication == .credential
            guard let named = body.credentialHeader ?? (same ? existing?.credentialHeader : nil) else {
                throw APIError.badRequest("A credential needs credentialHeader: the header to send it in.")
            }
            guard HTTPField.Name(named) != nil else {
                throw APIError.badRequest(
                    "credentialHeader '\(TextRules.escapingControls(String(named.prefix(64))))' is not a header name "
                        + "(letters, digits and !#$%&'*+-.^_`|~, no spaces).",
                    code: .invalidField
                )
            }
            guard !DestinationProxy.setsItself(named) else {
                throw APIError.badRequest(
                    "\(named) cannot carry a credential: the server sets it or drops it, or it concerns one connection "
                        + "or how the body is read.",
                    code: .invalidField
                )
            }
            header = named
            if let credential = body.credential {
                try Validation.length(credential, "credential", APILimits.credential)
                guard !Validation.hasControlCharacters(credential) else {
                    throw APIError.badRequest("credential holds a control character.", code: .invalidField)
                }
                do {
                    sealed = try keys.server.seal(
                        Data(credential.utf8),
                        for: Self.destinationCredentialPurpose(appID: app.id, name: name)
                    )
                } catch {
                    throw APIError.storage(StorageError(.unavailable, "a credential cannot be sealed"))
                }
            } else if same, let kept = existing?.sealedCredential {
                // A kept credential goes only where it went: a new origin or header could
                // send it to someone else's host.
                guard let existing, Self.origin(existing.url) == Self.origin(body.url),
                    existing.credentialHeader?.lowercased() == named.lowercased()
                else {
                    throw APIError.badRequest(
                        "A credential is sent only to the origin and in the header it was set for: send credential "
                            + "again with a new url origin or credentialHeader.",
                        code: .invalidField
                    )
                }
                sealed = kept
            } else {
                throw APIError.badRequest("A new credential destination needs credential: the header's value.")
            }
        }
        let record = DestinationRecord(
            appID: app.id,
            name: name,
            url: body.url,
            authentication: authentication,
            credentialHeader: header,
            sealedCredential: sealed,
            createdAt: existing?.createdAt ?? now()
        )
        let isNew = try await perform { try await storage.putDestination(record) }
        if let note = AuditNote.current {
            note.change("url", from: existing?.url ?? "none", to: record.url)
            note.change(
                "authentication",
                from: existing?.authentication.rawValue ?? "none",
                to: authentication.rawValue
            )
            note.change("credentialHeader", from: existing?.credentialHeader ?? "none", to: header ?? "none")
            if body.credential != nil { note.add("credential set") }
        }
        logger.notice(
            isNew ? "destination added" : "destination changed",
            metadata: ["app": "\(app.id)", "destination": "\(name)", "url": "\(body.url)"]
        )
        let answer = Self.wire(record, requests: [:])
        return isNew ? .created(.init(body: .json(answer))) : .ok(.init(body: .json(answer)))
    }

    func removeDestination(
        _ input: Operations.RemoveDestination.Input
    ) async throws -> Operations.RemoveDestination.Output {
        let app = try await app(input.path.appID)
        guard try await perform({ try await storage.deleteDestination(appID: app.id, name: input.path.name) }) else {
            throw APIError.destinationNotFound
        }
        logger.notice("destination removed", metadata: ["app": "\(app.id)", "destination": "\(input.path.name)"])
        return .noContent(.init())
    }

    func getDestinationKeys(
        _ input: Operations.GetDestinationKeys.Input
    ) async throws -> Operations.GetDestinationKeys.Output {
        _ = try await app(input.path.appID)
        return .ok(
            .init(
                body: .json(
                    .init(keys: try await perform { try await keys.destinationTokens.published(at: now()) }.map(\.jwk))
                )
            )
        )
    }

    static func wire(_ record: DestinationRecord, requests: [Int: Int]) -> Components.Schemas.Destination {
        .init(
            name: record.name,
            url: record.url,
            authentication: record.authentication == .identity ? .identity : .credential,
            credentialHeader: record.credentialHeader,
            createdAt: record.createdAt,
            requests: requests.sorted { $0.key < $1.key }.map { .init(status: Int32($0.key), count: Int64($0.value)) }
        )
    }
}

extension DestinationRecord.Authentication {
    init(_ wire: Components.Schemas.DestinationAuthentication) {
        switch wire {
        case .identity: self = .identity
        case .credential: self = .credential
        }
    }
}

extension APIError {
    static let destinationNotFound = APIError(
        .notFound,
        .destinationNotFound,
        "The app has no destination of this name."
    )
}
