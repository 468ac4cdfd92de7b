import Foundation
import GangwayProtocol
import GangwayServerStorage
import HTTPTypes
import Logging
import OpenAPIRuntime

/// What anyone may ask of the server itself: its health, the app of an email domain, the
/// key activations are signed with, whether an app version is still active, and the admin
/// token's proof that this is the server the admin client means.
struct ServerHandler: APIHandler {
    let services: APIServices

    func proveAdminServer(_ input: Operations.ProveAdminServer.Input) async throws -> Operations.ProveAdminServer.Output
    {
        guard case .json(let body) = input.body else { throw APIError.badRequest("Send the body as JSON.") }
        guard AdminProof.isWellFormed(challenge: body.challenge) else {
            throw APIError.badRequest("challenge must be 32 bytes in base64url (43 characters).", code: .invalidField)
        }
        return .ok(
            .init(
                body: .json(
                    .init(
                        proof: AdminProof.proof(
                            challenge: body.challenge,
                            tokenHash: try await services.adminTokenHash()
                        )
                    )
                )
            )
        )
    }

    func getHealth(_ input: Operations.GetHealth.Input) async throws -> Operations.GetHealth.Output {
        .ok(.init(body: .json(.init(status: .ok, storage: storage.kind == .sqlite ? .sqlite : .postgresql))))
    }

    func getLiveness(_ input: Operations.GetLiveness.Input) async throws -> Operations.GetLiveness.Output {
        .ok(.init(body: .json(.init(status: .ok))))
    }

    func getReadiness(_ input: Operations.GetReadiness.Input) async throws -> Operations.GetReadiness.Output {
        let storage: Components.Schemas.Readiness.StoragePayload = storage.kind == .sqlite ? .sqlite : .postgresql
        let reason: Components.Schemas.Readiness.ReasonPayload
        let message: String
        switch await services.readiness.reason() {
        case nil:
            return .ok(.init(body: .json(.init(status: .ready, storage: storage))))
        case .draining:
            (reason, message) = (
                .draining, "The server is stopping: it finishes what it serves, and soon takes no new connection."
            )
        case .storage:
            let within = "\(ServerReadiness.storageWait.components.seconds) seconds"
            logger.warning("readiness: the database could not be reached, or did not answer within \(within)")
            (reason, message) = (
                .storage, "The server's database could not be reached, or did not answer within \(within)."
            )
        }
        return .serviceUnavailable(
            .init(body: .json(.init(status: .notReady, storage: storage, reason: reason, message: message)))
        )
    }

    func discoverApp(_ input: Operations.DiscoverApp.Input) async throws -> Operations.DiscoverApp.Output {
        let email = input.query.email
        try Validation.length(email, "email", APILimits.email)
        guard let at = email.lastIndex(of: "@"), at != email.startIndex,
            !email[..<at].contains(where: { $0 == "@" || $0.isWhitespace })
        else {
            throw APIError.badRequest("email must be an address such as name@example.com.", code: .invalidEmail)
        }
        let domain = try Validation.emailDomain(String(email[email.index(after: at)...]))
        guard let app = try await perform({ try await storage.app(forEmailDomain: domain) }) else {
            throw APIError.notFound(.domainUnknown, "No app is set up for this email domain.")
        }
        return .ok(.init(body: .json(services.configuration(of: app))))
    }

    func getActivationKey(_ input: Operations.GetActivationKey.Input) async throws -> Operations.GetActivationKey.Output
    {
        .ok(.init(body: .json(try await keys.activation.publicKey())))
    }

    func checkVersion(_ input: Operations.CheckVersion.Input) async throws -> Operations.CheckVersion.Output {
        let text = input.query.version
        try Validation.length(text, "version", APILimits.version)
        let version = try AppVersion(text)
        let app = try await app(input.path.appID)
        guard let minimum = app.minimumVersion else {
            return .ok(.init(body: .json(.init(version: text, active: true, authType: .init(app.authentication.type)))))
        }
        let active = version >= (try AppVersion(minimum))
        return .ok(
            .init(
                body: .json(
                    .init(
                        version: text,
                        active: active,
                        minimumVersion: minimum,
                        message: active
                            ? nil
                            : "Version \(text) of \(app.name) is no longer active; update to \(minimum) or later.",
                        authType: .init(app.authentication.type)
                    )
                )
            )
        )
    }
}
