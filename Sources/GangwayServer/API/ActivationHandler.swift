import Foundation
import GangwayProtocol
import GangwayQRCode
import GangwayServerStorage
import HTTPTypes
import Logging
import OpenAPIRuntime

/// Activation links and their QR codes, signed with the activation key.
struct ActivationHandler: APIHandler {
    let services: APIServices

    func createActivation(_ input: Operations.CreateActivation.Input) async throws -> Operations.CreateActivation.Output
    {
        let app = try await app(input.path.appID)
        return .created(.init(body: .json(try await activation(of: app, validDays: input.query.validDays))))
    }

    /// A signed activation for `app` that activates for `validDays` (7 when `nil`),
    /// with a nonce of its own, logged with the app and the expiry.
    private func activation(of app: AppRecord, validDays: Int?) async throws -> Components.Schemas.Activation {
        let days = validDays ?? 7
        guard APILimits.activationValidDays.contains(days) else {
            throw APIError.badRequest(
                "validDays must be between \(APILimits.activationValidDays.lowerBound) and \(APILimits.activationValidDays.upperBound).",
                code: .invalidField
            )
        }
        var configuration = services.configuration(of: app)
        // Whole seconds: what the payload's RFC 3339 date holds.
        let expiry = (now().timeIntervalSince1970 + Double(days) * 24 * 60 * 60).rounded(.down)
        configuration.activationExpiresAt = Date(timeIntervalSince1970: expiry)
        configuration.activationNonce = Self.randomBytes(16).base64URLEncoded
        logger.notice(
            "activation link made",
            metadata: [
                "app": "\(app.id)", "nonce": "\(configuration.activationNonce ?? "")", "days": "\(days)",
                "request": "\(RequestInfo.current.requestID)",
            ]
        )
        return try await keys.activation.activation(for: configuration)
    }

    func getActivationQRCode(
        _ input: Operations.GetActivationQRCode.Input
    ) async throws -> Operations.GetActivationQRCode.Output {
        let app = try await app(input.path.appID)
        let activation = try await activation(of: app, validDays: input.query.validDays)
        guard let png = QRCodes.png(activation.link) else {
            throw APIError(
                .serviceUnavailable,
                .qrUnavailable,
                "The activation link is longer than a QR code holds; use the link itself."
            )
        }
        return .ok(.init(body: .png(HTTPBody(png))))
    }
}
