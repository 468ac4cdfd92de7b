import Foundation
import GangwayConsole
import GangwayProtocol
import GangwayServerStorage
import HTTPTypes
import Hummingbird

/// The console's users: found by the start of their name a page at a time, blocked,
/// unblocked and signed out everywhere, through the admin API's own operations.
extension OperatorConsole {
    /// Users on one page.
    static let usersPerPage = 50

    func registerUsers(on router: Router<ServerContext>) {
        router.get(RouterPath(ConsolePaths.users)) { request, _ in await users(request) }
        router.post(RouterPath(ConsolePaths.users + "/:username")) { request, context in
            await act(request, username: context.parameters.get("username") ?? "")
        }
    }

    private func users(_ request: Request, refusal: String? = nil, status: HTTPResponse.Status = .ok) async -> Response
    {
        guard let (_, record) = await signedIn(request) else { return Self.redirect(to: ConsolePaths.signIn) }
        let query = String((request.uri.queryParameters.get("q") ?? "").prefix(128))
        let after = request.uri.queryParameters.get("after").map { String($0.prefix(128)) }
        guard
            let found = try? await api.storage.users(prefix: query, after: after, limit: Self.usersPerPage + 1)
        else { return unavailable() }
        let shown = found.prefix(Self.usersPerPage)
        let next =
            found.count > Self.usersPerPage ? shown.last.map { Self.usersPath(query: query, after: $0.username) } : nil
        let browser = api.formGuard.browser(request.headers)
        let page = UsersPage(
            signedIn: header(record, browser: browser, current: ConsolePaths.users),
            query: query,
            users: shown.map {
                UsersPage.Row(
                    username: $0.username,
                    displayName: $0.displayName,
                    blocked: $0.blocked,
                    added: Self.day($0.createdAt)
                )
            },
            canAct: record.role >= .operator,
            next: next,
            refusal: refusal
        )
        return self.page(page, status: status, browser: browser)
    }

    /// Blocks, unblocks or signs out a user, as `PATCH /admin/users/{username}` and
    /// `DELETE /admin/users/{username}/sessions` do, for an operator or an admin.
    private func act(_ request: Request, username: String) async -> Response {
        guard case .form(let form, _) = await self.form(request) else { return await refused(request) }
        guard let (_, record) = await signedIn(request) else { return Self.redirect(to: ConsolePaths.signIn) }
        guard record.role >= .operator else {
            return await users(
                request,
                refusal: "A viewer reads only: ask an admin for the operator role to change users.",
                status: .forbidden
            )
        }
        let target = "/admin/users/\(username)"
        let operation: String
        do {
            switch form["action"] {
            case "block", "unblock":
                operation = "updateUser"
                let body = Components.Schemas.UserUpdate(blocked: form["action"] == "block")
                _ = try await run(for: record) {
                    try await api.updateUser(.init(path: .init(username: username), body: .json(body)))
                }
            case "revoke":
                operation = "revokeUserSessions"
                _ = try await run(for: record) {
                    try await api.revokeUserSessions(.init(path: .init(username: username)))
                }
            default:
                return await users(request, refusal: "That is not something the console does.", status: .badRequest)
            }
        } catch {
            let message = (error as? APIError)?.message ?? "The server could not do this now."
            return await users(request, refusal: message, status: (error as? APIError)?.status ?? .serviceUnavailable)
        }
        await api.audit(
            actor: record.name,
            via: .console,
            action: operation,
            target: target + (operation == "revokeUserSessions" ? "/sessions" : "")
        )
        return Self.redirect(to: Self.usersPath(query: form["q"] ?? "", after: nil))
    }

    /// Runs an admin operation for the operator `record`, who may do it.
    func run<Result>(for record: OperatorRecord, _ body: () async throws -> Result) async throws -> Result {
        var info = RequestInfo.current
        info.consoleOperator = record.name
        info.bearerToken = nil
        return try await RequestInfo.$current.withValue(info) { try await body() }
    }

    static func usersPath(query: String, after: String?) -> String {
        var components = URLComponents()
        components.path = ConsolePaths.users
        var items: [URLQueryItem] = []
        if !query.isEmpty { items.append(URLQueryItem(name: "q", value: query)) }
        if let after { items.append(URLQueryItem(name: "after", value: after)) }
        components.queryItems = items.isEmpty ? nil : items
        return components.string ?? ConsolePaths.users
    }

    static func day(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day())
    }
}
