import Foundation
import GangwayProtocol
import GangwayServerStorage
import HTTPTypes
import Logging
import OpenAPIRuntime

/// Devices' changes waiting for the company's backend (`gangway admin data deliveries`):
/// listed, sent again, or discarded by an operator.
struct DeliveriesHandler: APIHandler {
    let services: APIServices

    func listDeliveries(_ input: Operations.ListDeliveries.Input) async throws -> Operations.ListDeliveries.Output {
        let app = try await app(input.path.appID)
        let limit = try Validation.listLimit(input.query.limit)
        let parked = input.query.parked ?? false
        let deliveries = try await perform {
            try await storage.deliveries(appID: app.id, parkedOnly: parked, limit: limit)
        }
        return .ok(.init(body: .json(deliveries.map(Self.wire))))
    }

    func retryDelivery(_ input: Operations.RetryDelivery.Input) async throws -> Operations.RetryDelivery.Output {
        let app = try await app(input.path.appID)
        let changeID = try Self.changeID(input.path.changeID)
        guard
            let delivery = try await perform({
                try await storage.retryDelivery(appID: app.id, changeID: changeID, at: now())
            })
        else { throw APIError.deliveryNotFound }
        logger.notice("delivery retried", metadata: ["app": "\(app.id)", "change": "\(changeID)"])
        return .ok(.init(body: .json(Self.wire(delivery))))
    }

    func discardDelivery(_ input: Operations.DiscardDelivery.Input) async throws -> Operations.DiscardDelivery.Output {
        let app = try await app(input.path.appID)
        let changeID = try Self.changeID(input.path.changeID)
        guard let delivery = try await perform({ try await storage.delivery(appID: app.id, changeID: changeID) })
        else { throw APIError.deliveryNotFound }
        let rejection = ChangeRejection(
            .discarded,
            "An operator discarded the change: the company's backend never decided it. Fix it and send it again."
        )
        guard try await perform({ try await storage.finishDelivery(delivery, .refused(rejection), at: now()) }) != nil
        else { throw APIError.deliveryNotFound }
        logger.notice("delivery discarded", metadata: ["app": "\(app.id)", "change": "\(changeID)"])
        return .noContent(.init())
    }

    /// A path's change ID, or a 404 for one that cannot be one.
    private static func changeID(_ text: String) throws(APIError) -> String {
        guard text.count == APILimits.changeID.upperBound, let id = UUID(uuidString: text),
            id.lowercasedText == text
        else { throw APIError.deliveryNotFound }
        return text
    }

    static func wire(_ delivery: DeliveryRecord) -> Components.Schemas.Delivery {
        let change = delivery.change
        return .init(
            changeID: change.id.lowercasedText,
            entitySet: change.entitySet,
            entityID: change.entityID,
            author: change.author,
            carrier: delivery.carrier,
            registrationID: change.registrationID,
            receivedAt: delivery.receivedAt,
            attempts: Int64(delivery.attempts),
            parked: delivery.parked,
            lastError: delivery.lastError,
            fields: change.fields.keys.sorted()
        )
    }
}

extension APIError {
    static let deliveryNotFound = APIError(
        .notFound,
        .deliveryNotFound,
        "No change of this ID waits for the company's backend."
    )
}
