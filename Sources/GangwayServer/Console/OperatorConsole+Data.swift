import Foundation
import GangwayConsole
import GangwayProtocol
import GangwayServerStorage
import HTTPTypes
import Hummingbird

/// The console's data: an app's uploaded changes, newest first (all, or those that ended
/// one way), with their author, the session that carried them and how they ended; and the
/// entities of one of its entity sets. Read through the admin API's own
/// `GET /admin/apps/{appID}/changes` and `GET /admin/apps/{appID}/data/{entitySet}`.
extension OperatorConsole {
    /// Changes on the page.
    static let changesShown = 100

    func registerData(on router: Router<ServerContext>) {
        router.get(RouterPath(ConsolePaths.data)) { request, _ in await data(request) }
    }

    private func data(_ request: Request) async -> Response {
        guard let (_, record) = await signedIn(request) else { return Self.redirect(to: ConsolePaths.signIn) }
        let browser = api.formGuard.browser(request.headers)
        guard let apps = try? await api.storage.apps() else { return unavailable() }
        let asked = request.uri.queryParameters.get("app").map { String($0) }
        guard let app = apps.first(where: { $0.id == asked }) ?? apps.first else {
            return page(
                DataPage(
                    signedIn: header(record, browser: browser, current: ConsolePaths.data),
                    apps: [],
                    appID: "",
                    outcomes: [],
                    changes: [],
                    sets: [],
                    entitySet: "",
                    entities: []
                ),
                browser: browser
            )
        }
        let outcome = request.uri.queryParameters.get("outcome").flatMap {
            Operations.ListChanges.Input.Query.OutcomePayload(rawValue: String($0))
        }
        // The sets the app's settings name: those devices may change.
        let sets = (app.settings.dataSettings?.entitySets?.additionalProperties.keys).map { $0.sorted() } ?? []
        let wanted = request.uri.queryParameters.get("set").map { String($0) }
        let entitySet = sets.first { $0 == wanted } ?? sets.first ?? "checks"
        let changes: [Components.Schemas.RecordedChange]
        let entities: [Components.Schemas.Entity]
        do {
            let query = Operations.ListChanges.Input.Query(limit: Self.changesShown, outcome: outcome)
            guard
                case .ok(let listed) = try await run(
                    for: record,
                    { try await api.listChanges(.init(path: .init(appID: app.id), query: query)) }
                ),
                case .json(let recorded) = listed.body
            else { return unavailable() }
            changes = recorded
            let read = try? await run(for: record) {
                try await api.listAppData(.init(path: .init(appID: app.id, entitySet: entitySet)))
            }
            if case .ok(let answer) = read, case .json(let set) = answer.body {
                entities = set.entities
            } else {
                entities = []
            }
        } catch {
            return unavailable()
        }
        let page = DataPage(
            signedIn: header(record, browser: browser, current: ConsolePaths.data),
            apps: apps.map { .init(value: $0.id, title: "\($0.name) (\($0.id))", selected: $0.id == app.id) },
            appID: app.id,
            outcomes: outcomes(selected: outcome?.rawValue ?? ""),
            changes: changes.map(Self.row),
            sets: (sets.isEmpty ? [entitySet] : sets).map { .init(value: $0, title: $0, selected: $0 == entitySet) },
            entitySet: entitySet,
            entities: entities.map {
                DataPage.Entity(
                    id: $0.id,
                    version: $0.version,
                    updatedBy: $0.updatedBy,
                    updatedAt: Self.minute($0.updatedAt),
                    fields: $0.fields.additionalProperties
                )
            }
        )
        return self.page(page, browser: browser)
    }

    /// The ways a change ends that the page filters by, and any.
    private func outcomes(selected: String) -> [ConsoleOption] {
        let values = [""] + Operations.ListChanges.Input.Query.OutcomePayload.allCases.map(\.rawValue)
        return values.map { ConsoleOption(value: $0, title: $0.isEmpty ? "any way" : $0, selected: $0 == selected) }
    }

    private static func row(_ change: Components.Schemas.RecordedChange) -> DataPage.Change {
        let result = change.result
        var details = result.conflicts.map {
            "\($0.field): the server kept \($0.serverValue.map { "“\($0)”" } ?? "nothing"), the device sent “\($0.deviceValue)”"
        }
        if let rejection = result.rejection { details.append("\(rejection.code): \(rejection.message)") }
        return DataPage.Change(
            received: minute(change.receivedAt),
            entity: "\(change.entitySet)/\(change.entityID)",
            author: change.author,
            carrier: change.carrier,
            outcome: result.outcome.rawValue,
            details: details.map { TextRules.escapingControls($0, keepingLines: false) }
        )
    }
}
