import Foundation
import GangwayForms
import GangwayProtocol
import GangwayServerStorage
import HTTPTypes
import Hummingbird

/// The console's operators: everyone reads the list; an admin adds an operator, changes a
/// role, gives a new enrolment link or removes one, through the admin API's own
/// operations, as `gangway admin operators` does. An admin changes nothing of their own
/// here (another admin, or the command line, does), so no one locks the last admin out
/// by a slip.
extension OperatorConsole {
    func registerOperators<Parent: RequestContext>(on router: RouterGroup<ConsoleContext<Parent>>) {
        page(router, ConsolePaths.operators) { request, _, record in
            await operators(
                record,
                browser: services.formGuard.browser(request.headers),
                notice: Self.notice(request, Self.operatorNotices)
            )
        }
        action(router, ConsolePaths.operators) { request, _, sent in await add(request, sent) }
        action(router, ConsolePaths.operators + "/:name") { request, context, sent in
            await change(request, sent, name: try context.parameters.require("name"))
        }
    }

    static let operatorNotices = [
        "role": "Changed the operator's role: it applies from their next page.",
        "link": "Linked the identity: the operator may sign in with it.",
        "unlink": "Removed the identity: the operator no longer signs in with it.",
        "remove": "Removed the operator: they can no longer sign in, and their console sessions ended.",
    ]

    private func operators(
        _ record: OperatorRecord,
        browser: FormGuard.Browser,
        status: HTTPResponse.Status = .ok,
        notice: String? = nil,
        error: String? = nil,
        enrolment: Components.Schemas.OperatorEnrolment? = nil,
        newName: String = "",
        typedLink: (issuer: String, subject: String) = ("", "")
    ) async -> Response {
        guard
            let listed = try? await run(
                for: record,
                "listOperators",
                { try await api.listOperators(.init()) }
            ).ok.body.json
        else { return unavailable() }
        var page = OperatorsPage(
            signedIn: header(record, browser: browser, current: ConsolePaths.operators),
            operators: listed.map {
                OperatorsPage.Row(
                    name: $0.name,
                    role: $0.role.rawValue,
                    roles: OperatorRole.allCases.map(\.rawValue),
                    isEnrolled: $0.enrolled,
                    created: Self.day($0.createdAt),
                    isSelf: $0.name == record.name
                )
            },
            roles: OperatorRole.allCases.map(\.rawValue),
            canAct: record.role >= .admin,
            error: error,
            link: enrolment.map { ($0.enrolmentURL, $0._operator.name, Self.minute($0.expiresAt)) },
            newName: newName,
            identities: listed.flatMap { listedOperator in
                (listedOperator.identities ?? []).map {
                    OperatorsPage.Identity(
                        operatorName: listedOperator.name,
                        issuer: $0.issuer,
                        subject: $0.subject,
                        created: Self.day($0.createdAt),
                        isSelf: listedOperator.name == record.name
                    )
                }
            },
            typedLink: typedLink
        )
        page.notice = notice
        return self.page(page, status: status, browser: browser)
    }

    /// The role a form names, or `nil`.
    private static func role(_ form: [String: String]) -> OperatorRole? {
        form["role"].flatMap(OperatorRole.init(rawValue:))
    }

    private func add(_ request: Request, _ sent: SentForm) async -> Response {
        let (form, browser, record) = (sent.fields, sent.browser, sent.record)
        if form["action"] == "link" { return await link(form, record: record, browser: browser) }
        let name = form["name"] ?? ""
        guard await permits(record, "addOperator", on: "/admin/operators/\(name)") else {
            return await operators(record, browser: browser, status: .forbidden, error: Self.adminsOnly, newName: name)
        }
        guard let role = Self.role(form) else {
            return await operators(record, browser: browser, status: .badRequest, error: Self.noRole, newName: name)
        }
        do {
            let enrolment = try await run(for: record, "addOperator") {
                try await api.addOperator(.init(body: .json(.init(name: name, role: role.wire))))
            }.created.body.json
            await services.audit(
                actor: record.name,
                via: .console,
                action: "addOperator",
                target: "/admin/operators/\(name)"
            )
            return await operators(record, browser: browser, enrolment: enrolment)
        } catch {
            return await operators(
                record,
                browser: browser,
                status: (error as? any ConsoleRefusal)?.status ?? .serviceUnavailable,
                error: (error as? any ConsoleRefusal)?.message ?? "The server could not add them now.",
                newName: name
            )
        }
    }

    private func change(_ request: Request, _ sent: SentForm, name: String) async -> Response {
        let (form, browser, record) = (sent.fields, sent.browser, sent.record)
        guard await permits(record, "updateOperator", on: "/admin/operators/\(name)") else {
            return await operators(record, browser: browser, status: .forbidden, error: Self.adminsOnly)
        }
        guard name != record.name else {
            return await operators(
                record,
                browser: browser,
                status: .forbidden,
                error: Self.notYourOwn
            )
        }
        let target = "/admin/operators/\(name)"
        if form["action"] == "remove",
            let asking = confirmation(
                of: form,
                to: ConsolePaths.operators + "/" + name,
                title: "Remove the operator \(TextRules.shown(name, limit: 64))?",
                consequence: "\(TextRules.shown(name, limit: 64)) can no longer sign in to the console. What they "
                    + "did stays in the audit. To undo this, an admin adds them again, and they enrol anew.",
                button: "Remove the operator",
                back: ConsolePaths.operators,
                record: record,
                browser: browser,
                current: ConsolePaths.operators
            )
        {
            return asking
        }
        do {
            switch form["action"] {
            case "role":
                guard let role = Self.role(form) else {
                    return await operators(record, browser: browser, status: .badRequest, error: Self.noRole)
                }
                _ = try await run(for: record, "updateOperator") {
                    try await api.updateOperator(.init(path: .init(name: name), body: .json(.init(role: role.wire))))
                }
                await services.audit(actor: record.name, via: .console, action: "updateOperator", target: target)
            case "enrol":
                let enrolment = try await run(for: record, "enrolOperator") {
                    try await api.enrolOperator(.init(path: .init(name: name)))
                }.ok.body.json
                await services.audit(
                    actor: record.name,
                    via: .console,
                    action: "enrolOperator",
                    target: target + "/enrolment"
                )
                return await operators(record, browser: browser, enrolment: enrolment)
            case "unlink":
                let query = Operations.UnlinkOperatorIdentity.Input.Query(
                    issuer: form["issuer"] ?? "",
                    subject: form["subject"] ?? ""
                )
                _ = try await run(for: record, "unlinkOperatorIdentity") {
                    try await api.unlinkOperatorIdentity(.init(path: .init(name: name), query: query))
                }
                await services.audit(
                    actor: record.name,
                    via: .console,
                    action: "unlinkOperatorIdentity",
                    target: target + "/identities"
                )
            case "remove":
                _ = try await run(for: record, "removeOperator") {
                    try await api.removeOperator(.init(path: .init(name: name)))
                }
                await services.audit(actor: record.name, via: .console, action: "removeOperator", target: target)
            default:
                return await operators(
                    record,
                    browser: browser,
                    status: .badRequest,
                    error: "That is not something the console does."
                )
            }
        } catch {
            return await operators(
                record,
                browser: browser,
                status: (error as? any ConsoleRefusal)?.status ?? .serviceUnavailable,
                error: (error as? any ConsoleRefusal)?.message ?? "The server could not do this now."
            )
        }
        return Self.redirect(to: ConsolePaths.operators + "?done=" + (form["action"] ?? ""))
    }

    /// Links a provider identity to another operator, as `gangway admin operators link` does.
    private func link(_ form: [String: String], record: OperatorRecord, browser: FormGuard.Browser) async -> Response {
        let name = form["operator"] ?? ""
        let typed = (issuer: form["issuer"] ?? "", subject: form["subject"] ?? "")
        guard await permits(record, "linkOperatorIdentity", on: "/admin/operators/\(name)/identities") else {
            return await operators(record, browser: browser, status: .forbidden, error: Self.adminsOnly)
        }
        guard name != record.name else {
            return await operators(record, browser: browser, status: .forbidden, error: Self.notYourOwn)
        }
        do {
            _ = try await run(for: record, "linkOperatorIdentity") {
                try await api.linkOperatorIdentity(
                    .init(path: .init(name: name), body: .json(.init(issuer: typed.issuer, subject: typed.subject)))
                )
            }
        } catch {
            return await operators(
                record,
                browser: browser,
                status: (error as? any ConsoleRefusal)?.status ?? .serviceUnavailable,
                error: (error as? any ConsoleRefusal)?.message ?? "The server could not link it now.",
                typedLink: typed
            )
        }
        await services.audit(
            actor: record.name,
            via: .console,
            action: "linkOperatorIdentity",
            target: "/admin/operators/\(name)/identities"
        )
        return Self.redirect(to: ConsolePaths.operators + "?done=link")
    }

    private static let notYourOwn =
        "You change nothing of your own here: another admin does, or gangway admin operators."
    private static let adminsOnly = "Only an admin changes the operators: ask an admin for the role."
    private static let noRole = "Choose a role: viewer, operator or admin."
}
