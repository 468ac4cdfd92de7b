import Foundation
import GangwayForms
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
    /// The entities of a set the page shows, the first by ID.
    static let entitiesShown = 500

    func registerData<Parent: RequestContext>(on router: RouterGroup<ConsoleContext<Parent>>) {
        page(router, ConsolePaths.data) { request, _, record in await data(request, record: record) }
        action(router, ConsolePaths.data) { request, _, sent in await writeData(request, sent) }
    }

    private func data(_ request: Request, record: OperatorRecord) async -> Response {
        let parameters = request.uri.queryParameters
        guard let apps = try? await services.storage.apps() else { return unavailable() }
        let (appID, outcome, set) = (parameters.get("app"), parameters.get("outcome"), parameters.get("set"))
        let after = parameters.get("after")
        let problems = ConsoleFilter.problems(
            ConsoleFilter.app(appID, in: apps),
            ConsoleFilter.value(
                outcome,
                "way a change ended",
                allowed: Operations.ListChanges.Input.Query.OutcomePayload.allCases.map(\.rawValue)
            ),
            ConsoleFilter.entitySet(set),
            ConsoleFilter.entityID(after)
        )
        return await dataPage(
            record,
            browser: services.formGuard.browser(request.headers),
            appID: appID,
            outcome: outcome.flatMap(Operations.ListChanges.Input.Query.OutcomePayload.init(rawValue:)),
            entitySet: set,
            after: problems == nil ? after.flatMap { $0.isEmpty ? nil : $0 } : nil,
            notice: problems == nil ? Self.notice(request, Self.dataNotices) : nil,
            error: problems,
            status: problems == nil ? .ok : .badRequest
        )
    }

    static let dataNotices = [
        "put": "Saved the entity: devices get it at their next read.",
        "delete": "Deleted the entity: devices drop it at their next read.",
        "rules": "Saved what devices may change in the set.",
        "schema":
            "Saved the set's schema: every write of the set is checked against it, and devices get it at their next settings exchange.",
        "unschema": "Removed the set's schema: it takes any fields, as text.",
        "pull": "Asked for a read of the set's changes from its data source: it starts within a second.",
        "pullFull": "Asked for a read of the whole set from its data source: it starts within a second.",
        "retryDelivery": "The change goes to the company's backend again now.",
        "discardDelivery": "Discarded the change: its author's device shows it refused at its next sync.",
    ]

    /// A data source as the page shows it.
    static func source(_ source: Components.Schemas.DataSource) -> DataPage.Source {
        let run = source.lastRun
        let lastRun = run.map { run in
            let counts =
                "\(run.kind.rawValue) read of \(run.rows) rows: \(run.written) written, \(run.removed) removed, "
                + "\(run.kept) kept with devices' changes, \(run.refused) refused"
            return "\(run.error == nil ? "" : "failed: ")\(counts), ended \(minute(run.finishedAt))"
        }
        let problem = run.flatMap { run in
            run.error ?? run.fellBack.map { "A full read: the delta link failed (\($0))." }
        }
        return DataPage.Source(
            reads: "\(source.destination) \(source.path), keyed by \(source.keyProperty)",
            every: source.everySeconds.map { "\($0) seconds" } ?? "only when asked",
            lastRun: source.running ? "running now" : lastRun ?? "none yet",
            nextRun: source.nextRunAt.map(minute) ?? (source.running ? "after this one" : "when asked"),
            problem: problem.map { TextRules.escapingControls($0, keepingLines: false) },
            refusals: (run?.refusals ?? []).prefix(20).map {
                let id = $0.id.map { " (\($0))" } ?? ""
                return TextRules.escapingControls("row \($0.line)\(id): \($0.code): \($0.message)", keepingLines: false)
            }
        )
    }

    private func dataPage(
        _ record: OperatorRecord,
        browser: FormGuard.Browser,
        appID asked: String?,
        outcome: Operations.ListChanges.Input.Query.OutcomePayload? = nil,
        entitySet wanted: String?,
        after: String? = nil,
        writing typed: DataPage.Writing? = nil,
        notice: String? = nil,
        error: String? = nil,
        status: HTTPResponse.Status = .ok
    ) async -> Response {
        guard let apps = try? await services.storage.apps() else { return unavailable() }
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
        let rules = app.settings.dataSettings?.entitySets?.additionalProperties ?? [:]
        let changes: [Components.Schemas.RecordedChange]
        let entities: [Components.Schemas.Entity]
        let moreEntities: Bool
        let schemas: [String: Components.Schemas.EntitySchema]
        do {
            schemas = try await run(for: record, "listEntitySchemas") {
                try await api.listEntitySchemas(.init(path: .init(appID: app.id)))
            }.ok.body.json.entitySets.additionalProperties
        } catch {
            return unavailable()
        }
        // The sets the app's rules or schemas name, and the one asked for, which may hold
        // entities only.
        var sets = Set(rules.keys).union(schemas.keys).sorted()
        let entitySet =
            if let wanted, EntityLimits.isIdentifier(wanted) { wanted } else { sets.first ?? "checks" }
        if !sets.contains(entitySet) { sets.append(entitySet) }
        do {
            let query = Operations.ListChanges.Input.Query(limit: Self.changesShown, outcome: outcome)
            changes = try await run(for: record, "listChanges") {
                try await api.listChanges(.init(path: .init(appID: app.id), query: query))
            }.ok.body.json
            let list = try? await run(for: record, "listAppData") {
                try await api.listAppData(
                    .init(
                        path: .init(appID: app.id, entitySet: entitySet),
                        query: .init(after: after, limit: Self.entitiesShown)
                    )
                )
            }.ok.body.json
            entities = list?.entities ?? []
            moreEntities = list?.more ?? false
        } catch {
            return unavailable()
        }
        let source = try? await run(for: record, "getDataSource") {
            try await api.getDataSource(.init(path: .init(appID: app.id, entitySet: entitySet)))
        }.ok.body.json
        let deliveries =
            source == nil
            ? []
            : (try? await run(for: record, "listDeliveries") {
                try await api.listDeliveries(.init(path: .init(appID: app.id), query: .init(limit: 1_000)))
            }.ok.body.json)?.filter { $0.entitySet == entitySet } ?? []
        let rule = rules[entitySet]
        let schema = schemas[entitySet]?.fields ?? []
        var page = DataPage(
            signedIn: header(record, browser: browser, current: ConsolePaths.data),
            apps: apps.map { .init(value: $0.id, title: "\($0.name) (\($0.id))", selected: $0.id == app.id) },
            appID: app.id,
            outcomes: outcomes(selected: outcome?.rawValue ?? ""),
            changes: changes.map(Self.row),
            sets: sets.map { .init(value: $0, title: $0, selected: $0 == entitySet) },
            entitySet: entitySet,
            entities: entities.map {
                DataPage.Entity(
                    id: $0.id,
                    version: $0.version,
                    updatedBy: $0.updatedBy,
                    updatedAt: Self.minute($0.updatedAt),
                    fields: $0.fields.additionalProperties
                )
            },
            canEdit: record.role >= .admin,
            schema: schema.map {
                DataPage.SchemaField(
                    name: $0.name,
                    type: $0._type.rawValue,
                    required: $0.required ?? false,
                    indexed: $0.indexed ?? false
                )
            },
            writing: typed
                ?? DataPage.Writing(
                    writableFields: rule?.writableFields ?? [],
                    allowsCreation: rule?.allowsCreation ?? false,
                    schema: schema.map {
                        EntityField(
                            $0.name,
                            FieldType(rawValue: $0._type.rawValue),
                            required: $0.required ?? false,
                            indexed: $0.indexed ?? false
                        ).declaration
                    }.joined(separator: "\n"),
                    subset: schemas[entitySet]?.subset.map { "\($0.field) = \($0.attribute)" } ?? ""
                ),
            error: error
        )
        page.notice = notice
        page.source = source.map(Self.source)
        page.deliveries = deliveries.map {
            DataPage.Delivery(
                changeID: $0.changeID,
                entity: $0.entityID,
                author: $0.author,
                received: Self.minute($0.receivedAt),
                fields: $0.fields,
                state: $0.parked
                    ? "parked after \($0.attempts) attempts: \($0.lastError ?? "")"
                    : $0.attempts == 0 ? "waiting" : "retrying: \($0.lastError ?? "")"
            )
        }
        page.moreEntities = moreEntities ? Self.entitiesShown : nil
        page.after = after
        // The next page starts after the last entity shown; the first, with no `after`.
        page.nextPage = moreEntities ? entities.last.map { Self.setLink(app.id, entitySet, after: $0.id) } : nil
        page.firstPage = after == nil ? nil : Self.setLink(app.id, entitySet)
        return self.page(page, status: status, browser: browser)
    }

    /// The page of `entitySet`'s entities of `appID`: the first, or those after `after`.
    static func setLink(_ appID: String, _ entitySet: String, after: String? = nil) -> String {
        var link = URLComponents()
        link.path = ConsolePaths.data
        link.queryItems =
            [URLQueryItem(name: "app", value: appID), URLQueryItem(name: "set", value: entitySet)]
            + (after.map { [URLQueryItem(name: "after", value: $0)] } ?? [])
        return link.string ?? ConsolePaths.data
    }

    /// Puts or deletes an entity, or sets what devices may change in a set, through the
    /// admin API's own operations, for an admin; then shows the set.
    private func writeData(_ request: Request, _ sent: SentForm) async -> Response {
        let (form, browser, record) = (sent.fields, sent.browser, sent.record)
        func trimmed(_ name: String) -> String { (form[name] ?? "").trimmingCharacters(in: .whitespaces) }
        let (appID, entitySet, entityID, action) = (trimmed("app"), trimmed("set"), trimmed("id"), form["action"] ?? "")
        let change = trimmed("change")
        let typed = DataPage.Writing(
            writableFields: AppSettingsForm.list(form["writableFields"] ?? ""),
            allowsCreation: form["allowsCreation"] == "on",
            entityID: entityID,
            entityFields: form["fields"] ?? "",
            schema: form["schema"] ?? "",
            subset: form["subset"] ?? ""
        )
        func again(_ message: String, _ status: HTTPResponse.Status) async -> Response {
            await dataPage(
                record,
                browser: browser,
                appID: appID,
                entitySet: entitySet,
                writing: action == "delete" ? nil : typed,
                error: message,
                status: status
            )
        }
        let asked =
            [
                "delete": "deleteEntity", "rules": "updateApp", "schema": "putEntitySchema",
                "unschema": "deleteEntitySchema", "pull": "pullDataSource", "pullFull": "pullDataSource",
                "retryDelivery": "retryDelivery", "discardDelivery": "discardDelivery",
            ][
                action
            ] ?? "putEntity"
        let asking =
            switch action {
            case "rules": "/admin/apps/\(appID)"
            case "schema", "unschema": "/admin/apps/\(appID)/schemas/\(entitySet)"
            case "pull", "pullFull": "/admin/apps/\(appID)/data-sources/\(entitySet)/pull"
            case "retryDelivery": "/admin/apps/\(appID)/deliveries/\(change)/retry"
            case "discardDelivery": "/admin/apps/\(appID)/deliveries/\(change)"
            default: "/admin/apps/\(appID)/data/\(entitySet)/\(entityID)"
            }
        guard await permits(record, asked, on: asking) else {
            return await again("Only an admin changes an app's data: ask an admin for the role.", .forbidden)
        }
        if action == "delete",
            let asking = confirmation(
                of: form,
                to: ConsolePaths.data,
                title: "Delete \(TextRules.shown(entityID, limit: 64))?",
                consequence: "The entity \(TextRules.shown(entityID, limit: 64)) leaves the set \(entitySet) of "
                    + "\(appID) on the server, and every device's copy at its next read. This cannot be undone.",
                button: "Delete the entity",
                back: Self.setLink(appID, entitySet),
                record: record,
                browser: browser,
                current: ConsolePaths.data
            )
        {
            return asking
        }
        if action == "discardDelivery",
            let asking = confirmation(
                of: form,
                to: ConsolePaths.data,
                title: "Discard the change \(TextRules.shown(change, limit: 64))?",
                consequence: "The company's backend never decided it. Its author's device shows it refused "
                    + "(DISCARDED) at its next sync, and the app can fix it and send it anew; the entity's later "
                    + "changes go on to the backend.",
                button: "Discard the change",
                back: Self.setLink(appID, entitySet),
                record: record,
                browser: browser,
                current: ConsolePaths.data
            )
        {
            return asking
        }
        let entityPath = Operations.PutEntity.Input.Path(appID: appID, entitySet: entitySet, entityID: entityID)
        let operation: String
        let target: String
        do {
            switch action {
            case "put":
                let fields = try Self.entityFields(form["fields"] ?? "")
                _ = try await run(for: record, "putEntity") {
                    try await api.putEntity(
                        .init(path: entityPath, body: .json(.init(fields: .init(additionalProperties: fields))))
                    )
                }
                (operation, target) = ("putEntity", "/admin/apps/\(appID)/data/\(entitySet)/\(entityID)")
            case "delete":
                _ = try await run(for: record, "deleteEntity") {
                    try await api.deleteEntity(
                        .init(path: .init(appID: appID, entitySet: entitySet, entityID: entityID))
                    )
                }
                (operation, target) = ("deleteEntity", "/admin/apps/\(appID)/data/\(entitySet)/\(entityID)")
            case "rules":
                let rule = Components.Schemas.EntitySetSettings(
                    writableFields: typed.writableFields,
                    allowsCreation: typed.allowsCreation
                )
                let update = Components.Schemas.AppUpdate(
                    settings: .init(dataSettings: .init(entitySets: .init(additionalProperties: [entitySet: rule])))
                )
                _ = try await run(for: record, "updateApp") {
                    try await api.updateApp(.init(path: .init(appID: appID), body: .json(update)))
                }
                (operation, target) = ("updateApp", "/admin/apps/\(appID)")
            case "schema":
                let fields = try Self.schemaFields(form["schema"] ?? "")
                let subset = try Self.subset(form["subset"] ?? "")
                _ = try await run(for: record, "putEntitySchema") {
                    try await api.putEntitySchema(
                        .init(
                            path: .init(appID: appID, entitySet: entitySet),
                            body: .json(.init(fields, subset: subset))
                        )
                    )
                }
                (operation, target) = ("putEntitySchema", "/admin/apps/\(appID)/schemas/\(entitySet)")
            case "unschema":
                _ = try await run(for: record, "deleteEntitySchema") {
                    try await api.deleteEntitySchema(.init(path: .init(appID: appID, entitySet: entitySet)))
                }
                (operation, target) = ("deleteEntitySchema", "/admin/apps/\(appID)/schemas/\(entitySet)")
            case "pull", "pullFull":
                _ = try await run(for: record, "pullDataSource") {
                    try await api.pullDataSource(
                        .init(path: .init(appID: appID, entitySet: entitySet), query: .init(full: action == "pullFull"))
                    )
                }
                (operation, target) = ("pullDataSource", "/admin/apps/\(appID)/data-sources/\(entitySet)/pull")
            case "retryDelivery":
                _ = try await run(for: record, "retryDelivery") {
                    try await api.retryDelivery(.init(path: .init(appID: appID, changeID: change)))
                }
                (operation, target) = ("retryDelivery", "/admin/apps/\(appID)/deliveries/\(change)/retry")
            case "discardDelivery":
                _ = try await run(for: record, "discardDelivery") {
                    try await api.discardDelivery(.init(path: .init(appID: appID, changeID: change)))
                }
                (operation, target) = ("discardDelivery", "/admin/apps/\(appID)/deliveries/\(change)")
            default:
                return await again("That is not something the console does.", .badRequest)
            }
        } catch let invalid as AppSettingsForm.Invalid {
            return await again(invalid.message, .badRequest)
        } catch let refused as any ConsoleRefusal {
            return await again(refused.message, refused.status)
        } catch {
            return unavailable()
        }
        await services.audit(actor: record.name, via: .console, action: operation, target: target)
        var components = URLComponents()
        components.path = ConsolePaths.data
        components.queryItems = [
            URLQueryItem(name: "app", value: appID), URLQueryItem(name: "set", value: entitySet),
            URLQueryItem(name: "done", value: action),
        ]
        return Self.redirect(to: components.string ?? ConsolePaths.data)
    }

    /// A schema's fields from lines of `name:type[:required][:indexed]` (blank lines
    /// skipped), as `gangway admin data schema --field` reads each; the server checks the
    /// whole.
    static func schemaFields(_ text: String) throws(AppSettingsForm.Invalid) -> [EntityField] {
        var fields: [EntityField] = []
        for line in text.split(whereSeparator: \.isNewline) {
            let declaration = line.filter { !$0.isWhitespace }
            guard !declaration.isEmpty else { continue }
            do {
                fields.append(try EntityField(declaration: declaration))
            } catch {
                throw AppSettingsForm.Invalid(message: error.message)
            }
        }
        return fields
    }

    /// A schema's subset from `field = attribute`; `nil` when blank.
    static func subset(_ text: String) throws(AppSettingsForm.Invalid) -> EntitySubset? {
        let compact = text.filter { !$0.isWhitespace }
        guard !compact.isEmpty else { return nil }
        let parts = compact.split(separator: "=", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2, EntityLimits.isFieldName(parts[0]), EntityLimits.isFieldName(parts[1]) else {
            throw AppSettingsForm.Invalid(
                message:
                    "A subset is field = attribute, two names of a letter, then letters, digits and '_'; blank for none."
            )
        }
        return EntitySubset(field: parts[0], attribute: parts[1])
    }

    /// An entity's fields from lines of `name = value` (blank lines skipped; the value is
    /// what follows the first `=`, trimmed).
    static func entityFields(_ text: String) throws(AppSettingsForm.Invalid) -> [String: String] {
        var fields: [String: String] = [:]
        for line in text.split(whereSeparator: \.isNewline) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else { continue }
            guard let equals = trimmed.firstIndex(of: "=") else {
                throw AppSettingsForm.Invalid(message: "Each line of the fields is one field: name = value.")
            }
            let name = trimmed[..<equals].trimmingCharacters(in: .whitespaces)
            guard fields[name] == nil else {
                throw AppSettingsForm.Invalid(message: "The field \(name) is given twice.")
            }
            fields[name] = trimmed[trimmed.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        }
        return fields
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
