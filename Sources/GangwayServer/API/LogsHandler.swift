import Foundation
import GangwayProtocol
import GangwayServerStorage
import HTTPTypes
import Logging
import OpenAPIRuntime

/// The logs devices upload, and the admin's listing of them.
struct LogsHandler: APIHandler {
    let services: APIServices

    func uploadLogs(_ input: Operations.UploadLogs.Input) async throws -> Operations.UploadLogs.Output {
        let caller = try await authenticate(appID: input.path.appID, requiresRegistration: true)
        guard case .json(let body) = input.body else { throw APIError.badRequest("Send the body as JSON.") }
        let logSettings = caller.app.settings.logSettings
        guard logSettings?.logEnabled == true else {
            throw APIError(.conflict, .logUploadDisabled, "Log upload is turned off for this app.")
        }
        let limit = logSettings?.maxEntriesPerUpload ?? 1000
        guard body.entries.count <= limit else {
            // The document allows more; this app's settings do not, hence 409 and not 400.
            throw APIError(.conflict, .tooManyEntries, "This app takes at most \(limit) entries per upload.")
        }
        let time = now()
        var records: [LogRecord] = []
        for entry in body.entries {
            try Validation.length(entry.message, "message", APILimits.logMessage)
            if let source = entry.source { try Validation.text(source, "source", APILimits.logSource) }
            records.append(
                LogRecord(
                    appID: caller.app.id,
                    username: caller.session.username,
                    deviceID: caller.session.deviceID,
                    time: entry.time,
                    level: entry.level.rawValue,
                    // Kept with its control characters written out (`\u{1B}`), tab and
                    // newline aside: a device's text never reaches an admin's terminal as
                    // escape codes, and PostgreSQL text never holds a NUL.
                    message: TextRules.escapingControls(entry.message),
                    source: entry.source,
                    receivedAt: time
                )
            )
        }
        try await throttle.admitLogUpload(
            appID: caller.app.id,
            deviceID: caller.session.deviceID,
            username: caller.session.username
        )
        try await perform { try await storage.insertLogs(records, retention: .standard(now: time)) }
        try await devices.noteContact(caller.device)
        return .accepted(.init(body: .json(.init(accepted: records.count))))
    }

    func listLogs(_ input: Operations.ListLogs.Input) async throws -> Operations.ListLogs.Output {
        let app = try await app(input.path.appID)
        let query = input.query
        let limit = try Validation.listLimit(query.limit)
        // Every parameter is judged before a query that can match nothing is answered.
        if let before = query.before, before < 1 {
            throw APIError.badRequest("before must be an entry's ID, 1 or more.", code: .invalidField)
        }
        if let user = query.user {
            try Validation.length(user, "user", APILimits.username)
            // No user's name holds a control character (and PostgreSQL text cannot hold a NUL).
            if Validation.hasControlCharacters(user) { return .ok(.init(body: .json([]))) }
        }
        // Levels by rank, as the settings exchange names them.
        let ranked = Components.Schemas.LogSettings.LogLevelPayload.allCases.map(\.rawValue).filter { !$0.isEmpty }
        let filter = ServerStorage.LogFilter(
            username: query.user,
            levels: query.level.map { level in Array(ranked.drop { $0 != level.rawValue }) },
            since: query.since,
            until: query.until,
            before: query.before
        )
        let logs = try await perform { try await storage.logs(appID: app.id, filter: filter, limit: limit) }
        return .ok(
            .init(
                body: .json(
                    logs.map {
                        .init(
                            time: $0.time,
                            level: $0.level,
                            message: $0.message,
                            source: $0.source,
                            userID: $0.username,
                            deviceID: $0.deviceID,
                            receivedAt: $0.receivedAt,
                            id: $0.id
                        )
                    }
                )
            )
        )
    }
}
