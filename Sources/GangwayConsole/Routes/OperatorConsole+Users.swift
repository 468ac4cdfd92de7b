import Foundation
import GangwayForms
import GangwayProtocol
import GangwayServerStorage
import HTTPTypes
import Hummingbird

/// The console's users: found by the start of their name a page at a time, blocked,
/// unblocked and signed out everywhere, through the admin API's own operations.
extension OperatorConsole {
    /// Users on one page.
    static let usersPerPage = 50

    func registerUsers<Parent: RequestContext>(on router: RouterGroup<ConsoleContext<Parent>>) {
        page(router, ConsolePaths.users) { request, _, record in await users(request, record: record) }
        action(router, ConsolePaths.users) { request, _, sent in await add(request, sent) }
        page(router, ConsolePaths.users + "/:username") { request, context, record in
            await user(
                try context.parameters.require("username"),
                record: record,
                browser: services.formGuard.browser(request.headers)
            )
        }
        action(router, ConsolePaths.users + "/:username") { request, context, sent in
            await act(request, sent, username: try context.parameters.require("username"))
        }
    }

    private func users(
        _ request: Request,
        record: OperatorRecord,
        refusal: String? = nil,
        status: HTTPResponse.Status = .ok,
        typed: (username: String, displayName: String) = ("", "")
    ) async -> Response {
        let parameters = ConsoleQuery(query: request.uri.query)
        let query = String((parameters.get("q") ?? "").prefix(128))
        let after = parameters.get("after").map { String($0.prefix(128)) }
        // The admin API's own page of users, one more than shown to know whether a next
        // page follows.
        let asked = Operations.ListUsers.Input.Query(search: query, after: after, limit: Self.usersPerPage + 1)
        guard
            let found = try? await run(
                for: record,
                "listUsers",
                { try await api.listUsers(.init(query: asked)) }
            ).ok.body.json
        else { return unavailable() }
        let shown = found.prefix(Self.usersPerPage)
        // Who each signs in as, and who else is shown by the same name: a person a
        // provider signed in first, named as someone who was there before, stands out.
        guard let links = try? await services.storage.identityLinks(.user, named: shown.map(\.username)),
            let namesakes = try? await services.storage.users(displayedAs: Array(Set(shown.map(\.displayName))))
        else { return unavailable() }
        let next =
            found.count > Self.usersPerPage ? shown.last.map { Self.usersPath(query: query, after: $0.username) } : nil
        let browser = services.formGuard.browser(request.headers)
        var page = UsersPage(
            signedIn: header(record, browser: browser, current: ConsolePaths.users),
            query: query,
            users: shown.map { user in
                UsersPage.Row(
                    username: user.username,
                    displayName: user.displayName,
                    blocked: user.blocked,
                    added: Self.day(user.createdAt),
                    providers: links.filter { $0.holder == .user(user.username) }.map { IssuerURL.shown($0.issuer) },
                    sameNameAs: namesakes.filter {
                        $0.username != user.username && $0.displayName.lowercased() == user.displayName.lowercased()
                    }.map(\.username)
                )
            },
            canAct: record.role >= .operator,
            next: next,
            refusal: refusal,
            notice: refusal == nil ? Self.notice(request, among: shown.map(\.username)) : nil,
            typed: typed
        )
        // How many there are in all, and the way back to the first page.
        if let total = try? await services.storage.userCount(containing: query) {
            page.caption += total == 1 ? " (1 in all)" : " (\(total) in all)"
        }
        if after != nil { page.firstPage = Self.usersPath(query: query, after: nil) }
        return self.page(page, status: status, browser: browser)
    }

    /// What the action named in the request's query (`done`) did to its `user`, when that
    /// is a user the page shows: in fixed words, never text from the query.
    static func notice(_ request: Request, among shown: [String]) -> String? {
        let parameters = ConsoleQuery(query: request.uri.query)
        guard let user = parameters.get("user"), shown.contains(user) else { return nil }
        switch parameters.get("done") {
        case "block": return "Blocked \(user): their sessions ended, and they cannot sign in."
        case "unblock": return "Unblocked \(user)."
        case "revoke": return "Ended \(user)'s sessions on every device."
        default: return nil
        }
    }

    /// One user's page, with `error` or `notice` said at its top.
    private func user(
        _ username: String,
        record: OperatorRecord,
        browser: FormGuard.Browser,
        status: HTTPResponse.Status = .ok,
        error: String? = nil,
        notice: String? = nil,
        typed: (issuer: String, subject: String) = ("", ""),
        typedAttributes: String? = nil
    ) async -> Response {
        let path = Operations.GetUser.Input.Path(username: username)
        let found: Components.Schemas.User
        let links: [Components.Schemas.IdentityLink]
        do {
            let user = try await run(
                for: record,
                "getUser",
                { try await api.getUser(.init(path: path)) }
            ).ok.body.json
            let identities = try await run(
                for: record,
                "listIdentityLinks",
                { try await api.listIdentityLinks(.init(path: .init(username: username))) }
            ).ok.body.json
            found = user
            links = identities
        } catch let error as any ConsoleRefusal where error.status == .notFound {
            return notFound(browser)
        } catch {
            return unavailable()
        }
        let page = UserPage(
            signedIn: header(record, browser: browser, current: ConsolePaths.users),
            username: found.username,
            displayName: found.displayName,
            blocked: found.blocked,
            added: Self.day(found.createdAt),
            identities: links.map {
                UserPage.Identity(issuer: $0.issuer, subject: $0.subject, linked: Self.day($0.createdAt))
            },
            canAct: record.role >= .operator,
            action: ConsolePaths.users + "/" + found.username,
            error: error,
            notice: notice,
            issuer: typed.issuer,
            subject: typed.subject,
            attributes: found.attributes?.additionalProperties ?? [:],
            typedAttributes: typedAttributes
        )
        return self.page(page, status: status, browser: browser)
    }

    /// Adds a user, as `POST /admin/users` does, for an operator or an admin; then their page.
    private func add(_ request: Request, _ sent: SentForm) async -> Response {
        let (form, record) = (sent.fields, sent.record)
        guard await permits(record, "createUser", on: "/admin/users") else {
            return await users(request, record: record, refusal: Self.viewersRead, status: .forbidden)
        }
        let displayName = (form["displayName"] ?? "").trimmingCharacters(in: .whitespaces)
        let body = Components.Schemas.UserCreate(
            username: form["username"] ?? "",
            password: form["password"] ?? "",
            displayName: displayName.isEmpty ? nil : displayName
        )
        do {
            let user = try await run(for: record, "createUser") { try await api.createUser(.init(body: .json(body))) }
                .created.body.json
            await services.audit(
                actor: record.name,
                via: .console,
                action: "createUser",
                target: "/admin/users/\(user.username)"
            )
            return Self.redirect(to: ConsolePaths.users + "/" + user.username)
        } catch {
            let message = (error as? any ConsoleRefusal)?.message ?? "The server could not do this now."
            return await users(
                request,
                record: record,
                refusal: message,
                status: (error as? any ConsoleRefusal)?.status ?? .serviceUnavailable,
                typed: (body.username, displayName)
            )
        }
    }

    private static let viewersRead = "A viewer reads only: ask an admin for the operator role to change users."

    /// Blocks, unblocks or signs out a user, sets their password, or links or unlinks an
    /// identity, as `PATCH /admin/users/{username}`, `DELETE /admin/users/{username}/sessions`
    /// and `/admin/users/{username}/identities` do, for an operator or an admin.
    private func act(_ request: Request, _ sent: SentForm, username: String) async -> Response {
        let (form, browser, record) = (sent.fields, sent.browser, sent.record)
        let onUserPage =
            form["back"] == "user" || ["password", "link", "unlink", "attributes"].contains(form["action"] ?? "")
        guard await permits(record, "updateUser", on: "/admin/users/\(username)") else {
            if onUserPage {
                return await user(
                    username,
                    record: record,
                    browser: browser,
                    status: .forbidden,
                    error: Self.viewersRead
                )
            }
            return await users(request, record: record, refusal: Self.viewersRead, status: .forbidden)
        }
        let target = "/admin/users/\(username)"
        let back = onUserPage ? ConsolePaths.users + "/" + username : Self.usersPath(query: form["q"] ?? "", after: nil)
        let shown = TextRules.shown(username, limit: 64)
        let asking: Response? =
            switch form["action"] {
            case "block":
                confirmation(
                    of: form,
                    to: ConsolePaths.users + "/" + username,
                    title: "Block \(shown)?",
                    consequence:
                        "\(shown)'s sessions end on every device at once, and \(shown) cannot sign in until an "
                        + "operator unblocks them. Changes their devices have not sent wait until then.",
                    button: "Block \(shown)",
                    back: back,
                    record: record,
                    browser: browser,
                    current: ConsolePaths.users
                )
            case "revoke":
                confirmation(
                    of: form,
                    to: ConsolePaths.users + "/" + username,
                    title: "End \(shown)'s sessions?",
                    consequence: "\(shown) is signed out on every device at once, and signs in again to go on. "
                        + "Their data on the devices stays.",
                    button: "End \(shown)'s sessions",
                    back: back,
                    record: record,
                    browser: browser,
                    current: ConsolePaths.users
                )
            default: nil
            }
        if let asking { return asking }
        let operation: String
        var notice: String?
        do {
            switch form["action"] {
            case "password":
                operation = "updateUser"
                let body = Components.Schemas.UserUpdate(password: form["password"] ?? "")
                _ = try await run(for: record, "updateUser") {
                    try await api.updateUser(.init(path: .init(username: username), body: .json(body)))
                }
                notice = "The password is set, and their sessions ended."
            case "attributes":
                operation = "updateUser"
                guard let attributes = UserPage.attributes(from: form["attributes"] ?? "") else {
                    return await user(
                        username,
                        record: record,
                        browser: browser,
                        status: .badRequest,
                        error: "Each line is one attribute, as NAME=VALUE,VALUE, each name once.",
                        typedAttributes: form["attributes"] ?? ""
                    )
                }
                let body = Components.Schemas.UserUpdate(attributes: .init(additionalProperties: attributes))
                _ = try await run(for: record, "updateUser") {
                    try await api.updateUser(.init(path: .init(username: username), body: .json(body)))
                }
                notice = "The attributes are set: their devices read their part of each set again at their next sync."
            case "link":
                operation = "linkIdentity"
                let body = Components.Schemas.IdentityLinkCreate(
                    issuer: form["issuer"] ?? "",
                    subject: form["subject"] ?? ""
                )
                _ = try await run(for: record, "linkIdentity") {
                    try await api.linkIdentity(.init(path: .init(username: username), body: .json(body)))
                }
                notice = "Linked."
            case "unlink":
                operation = "unlinkIdentity"
                _ = try await run(for: record, "unlinkIdentity") {
                    try await api.unlinkIdentity(
                        .init(
                            path: .init(username: username),
                            query: .init(issuer: form["issuer"] ?? "", subject: form["subject"] ?? "")
                        )
                    )
                }
                notice = "Unlinked."
            case "block", "unblock":
                operation = "updateUser"
                let body = Components.Schemas.UserUpdate(blocked: form["action"] == "block")
                _ = try await run(for: record, "updateUser") {
                    try await api.updateUser(.init(path: .init(username: username), body: .json(body)))
                }
                notice =
                    form["action"] == "block"
                    ? "Blocked \(shown): their sessions ended, and they cannot sign in." : "Unblocked \(shown)."
            case "revoke":
                operation = "revokeUserSessions"
                _ = try await run(for: record, "revokeUserSessions") {
                    try await api.revokeUserSessions(.init(path: .init(username: username)))
                }
                notice = "Ended \(shown)'s sessions on every device."
            default:
                return await users(
                    request,
                    record: record,
                    refusal: "That is not something the console does.",
                    status: .badRequest
                )
            }
        } catch {
            let message = (error as? any ConsoleRefusal)?.message ?? "The server could not do this now."
            let status = (error as? any ConsoleRefusal)?.status ?? .serviceUnavailable
            guard onUserPage else { return await users(request, record: record, refusal: message, status: status) }
            return await user(
                username,
                record: record,
                browser: browser,
                status: status,
                error: message,
                typed: form["action"] == "link" ? (form["issuer"] ?? "", form["subject"] ?? "") : ("", ""),
                typedAttributes: form["action"] == "attributes" ? form["attributes"] ?? "" : nil
            )
        }
        let suffix =
            switch operation {
            case "revokeUserSessions": "/sessions"
            case "linkIdentity", "unlinkIdentity": "/identities"
            default: ""
            }
        await services.audit(actor: record.name, via: .console, action: operation, target: target + suffix)
        guard onUserPage else {
            return Self.redirect(
                to: Self.usersPath(query: form["q"] ?? "", after: nil, done: form["action"], user: username)
            )
        }
        return await user(username, record: record, browser: browser, notice: notice ?? "Done.")
    }

    /// The users page: found by `query`, after `after`; with `done`, it says what that
    /// action did to `user`.
    static func usersPath(query: String, after: String?, done: String? = nil, user: String? = nil) -> String {
        var items = [("q", query), ("after", after ?? "")]
        if let done, let user { items += [("done", done), ("user", user)] }
        return ConsoleQuery.path(ConsolePaths.users, items)
    }

    static func day(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day())
    }
}
