import ArgumentParser
import Foundation
import GangwayAdmin
import GangwayServer
import GangwayServices
import GangwayTerminal

/// Which server `gangway admin` talks to, and with which token.
struct AdminOptions: ParsableArguments {
    @Option(
        name: .customLong("data-dir"),
        help:
            "The data directory whose local server to manage: the device app's (its server in DIR/server), or a 'gangway serve --data-dir'."
    )
    var dataDirectory = GangwayDirectory.path()

    @Option(name: .customLong("server"), help: "A remote server's URL instead of the local one.")
    var serverURL: String?

    @Option(
        name: .customLong("token-file"),
        help: "With --server: a file holding the admin token, yours and mode 0600 (default: $GANGWAY_ADMIN_TOKEN)."
    )
    var tokenFile: String?

    @Option(
        name: .customLong("bcrypt-cost"),
        parsing: .unconditional,
        help:
            "bcrypt cost of new passwords when the local server starts in this process, \(BcryptCostOption.rangeText)."
    )
    var bcryptCost: UInt8 = BcryptCostOption.default

    @Option(
        name: .customLong("key-file"),
        help: ArgumentHelp(
            "The server key of a stopped local server, as 'gangway serve' was given it (default: DIR/server-key).",
            valueName: "file"
        )
    )
    var keyFile: String?

    func validate() throws {
        try DirectoryOption.validate(dataDirectory, option: "--data-dir")
        try BcryptCostOption.validate(bcryptCost)
        if let serverURL {
            _ = try URLOption.parse(serverURL, option: "--server")
        } else if tokenFile != nil {
            throw ValidationError("--token-file goes with --server; the local server's token is read from DIR/server.")
        }
        if serverURL != nil, keyFile != nil {
            throw ValidationError("--key-file is for a local server started for the command, not one at --server.")
        }
        if let keyFile, keyFile.trimmingCharacters(in: .whitespaces).isEmpty {
            throw ValidationError("--key-file must name the server key's file.")
        }
    }

    /// Runs `body` with an admin client of the chosen server; failures become one line on
    /// standard error and exit code 1.
    func run(_ body: @escaping @Sendable (AdminClient) async throws -> Void) async throws {
        try await reaching { admin, _ in try await body(admin) }
    }

    /// ``run(_:)``, telling `body` whether the server ran in this process for the command
    /// (its address then ends with the command); a server started here publishes a new
    /// signing key for `keyPublicationLead` before it signs.
    func reaching(
        keyPublicationLead: Duration = ServerConfiguration.defaultKeyPublicationLead,
        _ body: @escaping @Sendable (AdminClient, _ startedHere: Bool) async throws -> Void
    ) async throws {
        try await CommandReport.run("gangway admin", describing: { ($0 as? ServiceError).map(message(for:)) }) {
            if let serverURL, let url = try? URLOption.parse(serverURL, option: "--server") {
                try await body(AdminClient(serverURL: url, adminToken: try remoteToken()), false)
            } else {
                let local = LocalServer(
                    dataDirectory: URL(fileURLWithPath: dataDirectory),
                    bcryptCost: bcryptCost,
                    keyPublicationLead: keyPublicationLead,
                    keyFile: keyFile.map { URL(fileURLWithPath: $0) }
                )
                try await local.withAdmin { admin, reach in try await body(admin, reach == .startedHere) }
            }
        }
    }

    private func remoteToken() throws -> String {
        if let tokenFile { return try SecretInput.read(file: tokenFile, what: "the token file") }
        if let token = ProcessInfo.processInfo.environment["GANGWAY_ADMIN_TOKEN"], !token.isEmpty { return token }
        throw CommandFailure("give the server's admin token with --token-file FILE or GANGWAY_ADMIN_TOKEN.")
    }

    private func message(for error: ServiceError) -> String {
        switch error.status {
        case 401: return "the server refused the admin token."
        case nil where error == .unreachable:
            let https = serverURL?.lowercased().hasPrefix("https://") == true
            return "no server answers at \(serverURL ?? "the local address")"
                + (https ? " over TLS; a server without TLS is reached with http://." : ".")
        case nil where error == .serverNotProven:
            return "the server at \(serverURL ?? "the local address") could not prove it holds this admin token "
                + "(a wrong token, or no Gangway server at that URL: give its base address, such as "
                + "http://127.0.0.1:8080); the token was not sent."
        default:
            let detail = error.serverMessage ?? error.summary
            return error.status.map { "the server answered \($0): \(detail)" } ?? detail
        }
    }
}

/// The app a command concerns.
struct AppOption: ParsableArguments {
    @Option(name: .customLong("app"), help: "The app's ID (default: the server's only app).")
    var appID: String?

    /// `--app`, or the server's only app.
    func validate() throws {
        if let appID { try IdentifierArgument.check(appID, as: "--app") }
    }

    func resolve(with admin: AdminClient) async throws -> String {
        if let appID { return appID }
        let apps = try await admin.apps()
        switch apps.count {
        case 1: return apps[0].id
        case 0: throw CommandFailure("the server has no app yet.")
        default:
            throw CommandFailure(
                "the server has \(apps.count) apps (\(apps.map(\.id).joined(separator: ", "))); choose one with --app."
            )
        }
    }

    /// Shows the app through `format`; with a `change`, applies it first and shows the
    /// result, after `changed` when given.
    func show(
        on server: AdminOptions,
        changing change: AppChange?,
        changed: String? = nil,
        as format: @escaping @Sendable (ManagedApp) -> String
    ) async throws {
        try await server.run { admin in
            let id = try await resolve(with: admin)
            guard let change else {
                Console.standardOutput(format(try await admin.app(id)))
                return
            }
            let updated = try await admin.updateApp(id, change)
            if let changed { Console.standardOutput(changed) }
            Console.standardOutput(format(updated))
        }
    }
}
