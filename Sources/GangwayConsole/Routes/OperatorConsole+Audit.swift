import Foundation
import GangwayForms
import GangwayProtocol
import GangwayServerStorage
import HTTPTypes
import Hummingbird
import NIOCore

/// The console's audit: what operators and the admin token did, newest first, fifty a
/// page, and the whole of it to download as CSV or JSON. Every role reads it.
extension OperatorConsole {
    static let eventsPerPage = 50

    func registerAudit<Parent: RequestContext>(on router: RouterGroup<ConsoleContext<Parent>>) {
        page(router, ConsolePaths.audit) { request, _, record in await audit(request, record: record) }
        page(router, ConsolePaths.auditCSV) { request, _, record in await export(request, record: record, json: false) }
        page(router, ConsolePaths.auditJSON) { request, _, record in await export(request, record: record, json: true) }
    }

    private func audit(_ request: Request, record: OperatorRecord) async -> Response {
        let parameters = ConsoleQuery(query: request.uri.query)
        let before = parameters.get("before").flatMap { Int64($0) }.flatMap { $0 >= 1 ? $0 : nil }
        let actor = String((parameters.get("actor") ?? "").trimmingCharacters(in: .whitespaces).prefix(128))
        let asked = String((parameters.get("action") ?? "").prefix(64))
        let action = AuditWording.actions[asked] == nil ? "" : asked
        guard
            let found = try? await services.storage.auditEvents(
                limit: Self.eventsPerPage + 1,
                before: before,
                actor: actor.isEmpty ? nil : actor,
                action: action.isEmpty ? nil : action
            )
        else {
            return unavailable()
        }
        func pagePath(before: Int64?) -> String {
            ConsoleQuery.path(
                ConsolePaths.audit,
                [("actor", actor), ("action", action), ("before", before.map(String.init) ?? "")]
            )
        }
        let shown = found.prefix(Self.eventsPerPage)
        let older = found.count > Self.eventsPerPage ? shown.last?.id.map { pagePath(before: $0) } : nil
        let browser = services.formGuard.browser(request.headers)
        let choices =
            [("", "anything")] + AuditWording.actions.sorted { $0.value < $1.value }.map { ($0.key, $0.value) }
        let page = AuditPage(
            signedIn: header(record, browser: browser, current: ConsolePaths.audit),
            events: shown.map {
                AuditPage.Row(
                    id: $0.id ?? 0,
                    at: Self.minute($0.at),
                    actor: $0.actor,
                    via: $0.via.rawValue,
                    action: AuditWording.action($0.action),
                    target: AuditWording.target($0.target),
                    address: $0.address,
                    detail: AuditWording.detail($0.detail)
                )
            },
            older: older,
            newest: before == nil ? nil : pagePath(before: nil),
            actor: actor,
            actions: choices.map { .init(value: $0.0, title: $0.1, selected: $0.0 == action) }
        )
        return self.page(page, browser: browser)
    }

    /// The whole audit, newest first, read through the API's `listAuditEvents` a
    /// thousand events at a time, as the operator's role allows it.
    private func export(_ request: Request, record: OperatorRecord, json: Bool) async -> Response {
        let pageSize = 1_000
        var events: [Components.Schemas.AuditEvent] = []
        var before: Int64?
        repeat {
            let query = Operations.ListAuditEvents.Input.Query(limit: pageSize, before: before)
            guard
                let batch = try? await run(
                    for: record,
                    "listAuditEvents",
                    {
                        try await api.listAuditEvents(.init(query: query))
                    }
                ).ok.body.json
            else { return unavailable() }
            events += batch
            before = batch.count == pageSize ? batch.last?.id : nil
        } while before != nil
        let body: String
        if json {
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .iso8601
            encoder.outputFormatting = [.sortedKeys]
            body = String(decoding: (try? encoder.encode(events)) ?? Data("[]".utf8), as: UTF8.self)
        } else {
            body = AuditExport.csv(events) + "\n"
        }
        return Response(
            status: .ok,
            headers: [
                .contentType: json ? "application/json; charset=utf-8" : "text/csv; charset=utf-8",
                .contentDisposition: "attachment; filename=\"gangway-audit.\(json ? "json" : "csv")\"",
                .cacheControl: "no-store",
                .xContentTypeOptions: "nosniff",
            ],
            body: .init(byteBuffer: ByteBuffer(string: body))
        )
    }
}
