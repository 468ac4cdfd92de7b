package import Foundation
package import GangwayProtocol

extension ChangeResult {
    /// A result as the server sent it, for the change `changeID`.
    package init(_ wire: Components.Schemas.ChangeResult, changeID: UUID) throws(ServiceError) {
        guard let outcome = ChangeResult.Outcome(rawValue: wire.outcome.rawValue) else {
            throw .invalidResponse(status: 200)
        }
        self.init(
            changeID: changeID,
            outcome: outcome,
            original: wire.original.flatMap { ChangeResult.Outcome(rawValue: $0.rawValue) },
            version: wire.version,
            conflicts: wire.conflicts.map {
                FieldConflict(field: $0.field, serverValue: $0.serverValue, deviceValue: $0.deviceValue)
            },
            rejection: wire.rejection.map {
                ChangeRejection(ChangeRejection.Code(rawValue: $0.code), $0.message, fields: $0.fields ?? [])
            }
        )
    }
}
