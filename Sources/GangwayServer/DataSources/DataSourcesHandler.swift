import Foundation
import GangwayProtocol
import GangwayServerStorage
import HTTPTypes
import Logging
import OpenAPIRuntime

/// The app's data sources: entity sets filled from the company's OData services
/// (`gangway admin data source`), read by ``DataSourcePulls``.
struct DataSourcesHandler: APIHandler {
    let services: APIServices

    /// The key property of a source that names none.
    static let defaultKeyProperty = "ID"

    func listDataSources(_ input: Operations.ListDataSources.Input) async throws -> Operations.ListDataSources.Output {
        let app = try await app(input.path.appID)
        let sources = try await perform { try await storage.dataSources(appID: app.id) }
        let now = now()
        return .ok(.init(body: .json(sources.map { Self.wire($0, at: now) })))
    }

    func getDataSource(_ input: Operations.GetDataSource.Input) async throws -> Operations.GetDataSource.Output {
        let source = try await source(input.path.appID, input.path.entitySet)
        return .ok(.init(body: .json(Self.wire(source, at: now()))))
    }

    func putDataSource(_ input: Operations.PutDataSource.Input) async throws -> Operations.PutDataSource.Output {
        guard case .json(let body) = input.body else { throw APIError.badRequest("Send the body as JSON.") }
        let app = try await app(input.path.appID)
        let entitySet = input.path.entitySet
        try Validation.identifier(entitySet, "entitySet")
        try Validation.identifier(body.destination, "destination")
        try Validation.length(body.path, "path", APILimits.dataSourcePath)
        guard Self.isPath(body.path) else {
            throw APIError.badRequest(
                "path must be segments after /, each of letters, digits and -._~!$&'()*+,;=:@, none empty or "
                    + "starting with a dot; no query and no percent-encoding.",
                code: .invalidField
            )
        }
        let keyProperty = body.keyProperty ?? Self.defaultKeyProperty
        guard EntityLimits.isFieldName(keyProperty) else {
            throw APIError.badRequest(
                "keyProperty must be a property name: a letter, then letters, digits and _, at most "
                    + "\(EntityLimits.fieldNameLength.upperBound) characters.",
                code: .invalidField
            )
        }
        let every = body.everySeconds.map(Int.init)
        if let every, !APILimits.dataSourceEverySeconds.contains(every) {
            throw APIError.badRequest(
                "everySeconds must be from \(APILimits.dataSourceEverySeconds.lowerBound) to "
                    + "\(APILimits.dataSourceEverySeconds.upperBound).",
                code: .invalidField
            )
        }
        guard try await perform({ try await storage.destination(appID: app.id, name: body.destination) }) != nil
        else {
            throw APIError(
                .notFound,
                .destinationNotFound,
                "The app has no destination \(body.destination): add it first (putDestination)."
            )
        }
        let existing = try await perform { try await storage.dataSource(appID: app.id, entitySet: entitySet) }
        let now = now()
        var record = DataSourceRecord(
            appID: app.id,
            entitySet: entitySet,
            destination: body.destination,
            path: body.path,
            keyProperty: keyProperty,
            every: every,
            delivers: body.deliversChanges ?? false,
            createdAt: existing?.createdAt ?? now
        )
        // A new source reads at once; a changed one keeps its next read, or takes the
        // new schedule's when it had none.
        record.state.nextRunAt =
            existing == nil
            ? now : existing?.state.nextRunAt ?? every.map { now.addingTimeInterval(TimeInterval($0)) }
        let isNew = try await perform { try await storage.putDataSource(record) }
        if let note = AuditNote.current {
            note.change("destination", from: existing?.destination ?? "none", to: record.destination)
            note.change("path", from: existing?.path ?? "none", to: record.path)
            note.change("keyProperty", from: existing?.keyProperty ?? "none", to: record.keyProperty)
            note.change(
                "everySeconds",
                from: existing.map { $0.every.map(String.init) ?? "on demand" } ?? "none",
                to: every.map(String.init) ?? "on demand"
            )
            note.change(
                "deliversChanges",
                from: existing.map { String($0.delivers) } ?? "none",
                to: String(record.delivers)
            )
        }
        logger.notice(
            isNew ? "data source added" : "data source changed",
            metadata: ["app": "\(app.id)", "set": "\(entitySet)", "destination": "\(record.destination)"]
        )
        let stored = try await source(app.id, entitySet)
        let answer = Self.wire(stored, at: now)
        return isNew ? .created(.init(body: .json(answer))) : .ok(.init(body: .json(answer)))
    }

    func removeDataSource(_ input: Operations.RemoveDataSource.Input) async throws -> Operations.RemoveDataSource.Output
    {
        let app = try await app(input.path.appID)
        try Validation.identifierOrNotFound(input.path.entitySet)
        guard try await perform({ try await storage.deleteDataSource(appID: app.id, entitySet: input.path.entitySet) })
        else { throw APIError.dataSourceNotFound }
        logger.notice("data source removed", metadata: ["app": "\(app.id)", "set": "\(input.path.entitySet)"])
        return .noContent(.init())
    }

    func pullDataSource(_ input: Operations.PullDataSource.Input) async throws -> Operations.PullDataSource.Output {
        let app = try await app(input.path.appID)
        try Validation.identifierOrNotFound(input.path.entitySet)
        let full = input.query.full ?? false
        guard
            let source = try await perform({
                try await storage.requestPull(appID: app.id, entitySet: input.path.entitySet, full: full, at: now())
            })
        else { throw APIError.dataSourceNotFound }
        AuditNote.current?.add(full ? "full read asked for" : "read asked for")
        return .accepted(.init(body: .json(Self.wire(source, at: now()))))
    }

    /// Whether `path` is a data source's path, as the API document's pattern says:
    /// segments after `/`, each of letters, digits and `-._~!$&'()*+,;=:@` (RFC 3986's
    /// path characters, without percent-encoding), none empty or starting with a dot, so
    /// no `.` or `..` segment.
    static func isPath(_ path: String) -> Bool {
        guard path.hasPrefix("/") else { return false }
        let punctuation = Set("-._~!$&'()*+,;=:@".unicodeScalars)
        return path.unicodeScalars.dropFirst().split(separator: "/", omittingEmptySubsequences: false).allSatisfy {
            segment in
            guard let first = segment.first, first != "." else { return false }
            return segment.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || punctuation.contains($0))
            }
        }
    }

    /// The data source of a set, or a 404.
    private func source(_ appID: String, _ entitySet: String) async throws -> DataSourceRecord {
        let app = try await app(appID)
        try Validation.identifierOrNotFound(entitySet)
        guard let source = try await perform({ try await storage.dataSource(appID: app.id, entitySet: entitySet) })
        else { throw APIError.dataSourceNotFound }
        return source
    }

    static func wire(_ source: DataSourceRecord, at now: Date) -> Components.Schemas.DataSource {
        .init(
            entitySet: source.entitySet,
            destination: source.destination,
            path: source.path,
            keyProperty: source.keyProperty,
            everySeconds: source.every.map(Int64.init),
            createdAt: source.createdAt,
            nextRunAt: source.state.nextRunAt,
            running: source.state.isRunning(at: now),
            fullRequested: source.state.fullRequested,
            hasDeltaLink: source.state.hasDeltaLink,
            lastRun: source.state.last.map(wire),
            deliversChanges: source.delivers
        )
    }

    static func wire(_ run: DataSourceRun) -> Components.Schemas.DataSourceRun {
        .init(
            kind: run.kind == .full ? .full : .delta,
            startedAt: run.startedAt,
            finishedAt: run.finishedAt,
            rows: Int64(run.rows),
            written: Int64(run.tally.written),
            removed: Int64(run.tally.removed),
            kept: Int64(run.tally.kept),
            refused: Int64(run.tally.refusedCount),
            refusals: run.tally.refused.map {
                .init(line: Int64($0.line), id: $0.id.isEmpty ? nil : $0.id, code: $0.code, message: $0.message)
            },
            error: run.error,
            fellBack: run.fellBack
        )
    }
}

extension APIError {
    static let dataSourceNotFound = APIError(
        .notFound,
        .dataSourceNotFound,
        "The entity set has no data source."
    )
}
