import Foundation
import GangwayProtocol
import GangwayServerStorage

/// The whole observable state, read from the storage and held to the model.
extension StorageModelRunner {
    /// Reads a set's change log back in pages of two, from the start, the middle and the
    /// end, with and without removals, through the last position and through one before it.
    func compareLog(appID: String, entitySet: String) async throws {
        let whole = model.entityLog(
            appID: appID,
            entitySet: entitySet,
            after: 0,
            through: nil,
            includingRemovals: true,
            limit: 10_000
        )
        let throughs: [Int64?] = [nil, whole.lastPosition > 1 ? whole.lastPosition - 1 : nil]
        let last = whole.lastPosition
        // The whole set, and, where the set has a subset, each part.
        let parts: [Set<String>?] =
            model.entitySchemas(appID: appID)[entitySet]?.subset == nil ? [nil] : [nil] + StorageOperation.parts
        for part in parts {
            for after in Set([0, 1, last / 2, last - 1, last]).filter({ (0...last).contains($0) }).sorted() {
                for through in Set(throughs) {
                    for includingRemovals in [true, false] {
                        try await agree(
                            "entityLog(\(entitySet), after: \(after), through: \(through.map(String.init) ?? "nil"), removals: \(includingRemovals), part: \(part.map { $0.sorted().description } ?? "all"))",
                            model: {
                                self.model.entityLog(
                                    appID: appID,
                                    entitySet: entitySet,
                                    after: after,
                                    through: through,
                                    includingRemovals: includingRemovals,
                                    subset: part,
                                    limit: 2
                                )
                            },
                            storage: {
                                try await self.storage.entityLog(
                                    appID: appID,
                                    entitySet: entitySet,
                                    after: after,
                                    through: through,
                                    includingRemovals: includingRemovals,
                                    subset: part,
                                    limit: 2
                                )
                            }
                        )
                    }
                }
            }
        }
    }

    /// Reads back everything the model holds.
    func compareState() async throws {
        let namespace = namespace
        try await agree(
            "users()",
            model: { self.model.users() },
            storage: { try await self.storage.users().filter { $0.username.hasPrefix(namespace) } }
        )
        for index in 0..<StorageOperation.apps {
            let app = appID(index)
            try await agree(
                "devices(appID: \(app))",
                model: { self.model.devices(appID: app) },
                storage: { try await self.storage.devices(appID: app) }
            )
        }
        for index in 0..<StorageOperation.users {
            let name = username(index)
            try await agree(
                "devices(username: \(name))",
                model: { self.model.devices(username: name) },
                storage: { try await self.storage.devices(username: name) }
            )
        }
        let app = appID(0)
        try await agree(
            "entitySchemas(appID: \(app))",
            model: { self.model.entitySchemas(appID: app) },
            storage: { try await self.storage.entitySchemas(appID: app) }
        )
        for set in StorageOperation.ChangeSpec.sets {
            try await agree(
                "entities(appID: \(app), entitySet: \(set))",
                model: { self.model.entities(appID: app, entitySet: set) },
                storage: { try await self.storage.entities(appID: app, entitySet: set) }
            )
            try await compareLog(appID: app, entitySet: set)
        }
        let outcomes: [ChangeResult.Outcome?] = [nil, .applied, .conflict, .rejected, .duplicate]
        for outcome in outcomes {
            let limit = outcome == nil ? 10_000 : 3
            try await agree(
                "changes(appID: \(app), outcome: \(outcome?.rawValue ?? "nil"), limit: \(limit))",
                model: { self.model.changes(appID: app, outcome: outcome, limit: limit) },
                storage: {
                    try await self.storage.changes(appID: app, outcome: outcome, limit: limit)
                        .map(StorageModel.RecordedRow.init)
                }
            )
        }
        for hash in sessionTokens {
            try await agree(
                "session(tokenHash: \(String(decoding: hash, as: UTF8.self)))",
                model: { self.model.session(tokenHash: hash) },
                storage: { try await self.storage.session(tokenHash: hash) }
            )
        }
        for hash in refreshTokens {
            try await agree(
                "refreshToken(tokenHash: \(String(decoding: hash, as: UTF8.self)))",
                model: { self.model.refreshToken(tokenHash: hash) },
                storage: { try await self.storage.refreshToken(tokenHash: hash) }
            )
        }
        for hash in cookieTokens {
            try await agree(
                "deviceCookie(tokenHash: \(String(decoding: hash, as: UTF8.self)))",
                model: { self.model.deviceCookie(tokenHash: hash) },
                storage: { try await self.storage.deviceCookie(tokenHash: hash) }
            )
        }
        let keys = attemptKeys
        let read: @Sendable ([String: SignInAttempts]) -> (SignInAttemptsChange, [String: SignInAttempts]) = {
            (SignInAttemptsChange(), $0)
        }
        try await agree(
            "the sign-in attempts of \(keys)",
            model: { self.model.updateSignInAttempts(keys: keys, read) },
            storage: { try await self.storage.updateSignInAttempts(username: self.username(0), keys: keys, read) }
        )
    }
}
