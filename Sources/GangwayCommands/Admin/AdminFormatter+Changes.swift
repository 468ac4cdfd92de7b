import Foundation
import GangwayAdmin
import GangwayProtocol
import GangwayServices

extension AdminFormatter {
    /// The changes as a table, newest first.
    static func changes(_ changes: [ManagedChange]) -> String {
        guard !changes.isEmpty else { return "No changes." }
        return table(
            ["RECEIVED", "ENTITY", "AUTHOR", "CARRIER", "RESULT", "CHANGE"],
            changes.map { change in
                [
                    date(change.receivedAt), "\(change.entitySet)/\(change.entityID)", change.author, change.carrier,
                    result(change.result), change.changeID.uuidString.lowercased(),
                ]
            }
        )
    }

    /// Each conflicting field of each change, with both values.
    static func conflicts(_ changes: [ManagedChange]) -> String {
        let rows = changes.flatMap { change in
            change.result.conflicts.map { conflict in
                [
                    date(change.receivedAt), "\(change.entitySet)/\(change.entityID)", conflict.field,
                    conflict.serverValue ?? "(none)", conflict.deviceValue, change.author,
                ]
            }
        }
        guard !rows.isEmpty else { return "No conflicts." }
        return table(["RECEIVED", "ENTITY", "FIELD", "KEPT (SERVER)", "DEVICE", "AUTHOR"], rows)
    }

    private static func result(_ result: ChangeResult) -> String {
        switch result.outcome {
        case .applied: "applied, version \(result.version.map(String.init) ?? "?")"
        case .conflict: "conflict on \(result.conflicts.map(\.field).joined(separator: ", "))"
        case .rejected: "rejected: \(result.rejection?.code.rawValue ?? "?")"
        case .duplicate: "duplicate"
        case .held: "held: \(result.rejection?.code.rawValue ?? "?")"
        }
    }

    /// The entities as a JSON array, for scripts.
    static func json(_ entities: [AppEntity]) -> String {
        let list: [[String: Any]] = entities.map { entity in
            [
                "id": entity.id, "version": entity.version, "fields": entity.fields,
                "updatedAt": LenientDateTranscoder.format(entity.updatedAt), "updatedBy": entity.updatedBy,
            ]
        }
        let data = (try? JSONSerialization.data(withJSONObject: list, options: [.sortedKeys])) ?? Data("[]".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// The changes as a JSON array, for scripts.
    static func json(_ changes: [ManagedChange]) -> String {
        let list: [[String: Any]] = changes.map { change in
            var object: [String: Any] = [
                "changeID": change.changeID.uuidString.lowercased(),
                "entitySet": change.entitySet,
                "entityID": change.entityID,
                "author": change.author,
                "carrier": change.carrier,
                "registrationID": change.registrationID,
                "outcome": change.result.outcome.rawValue,
                "receivedAt": LenientDateTranscoder.format(change.receivedAt),
                "conflicts": change.result.conflicts.map { conflict -> [String: Any] in
                    [
                        "field": conflict.field, "deviceValue": conflict.deviceValue,
                        "serverValue": conflict.serverValue as Any? ?? NSNull(),
                    ]
                },
            ]
            if let version = change.result.version { object["version"] = version }
            if let rejection = change.result.rejection {
                object["rejection"] = ["code": rejection.code.rawValue, "message": rejection.message]
            }
            return object
        }
        let data = (try? JSONSerialization.data(withJSONObject: list, options: [.sortedKeys])) ?? Data("[]".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
