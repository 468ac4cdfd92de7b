import ArgumentParser
import GangwayAdmin

/// `gangway admin`: manage a mobile-services server through its admin API.
struct AdminCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin",
        abstract:
            "Manage a server: users, sign-in, the passcode policy, devices, versions, activation, app data.",
        discussion: """
            Without --server, the command manages the local server of --data-dir DIR: the \
            device app's embedded server (in DIR/server), or the server of 'gangway serve \
            --data-dir DIR'. When it is serving, the calls go to it, so a running device app \
            sees each change at its next server contact (going to the background, or the next \
            launch); when nothing answers, the server starts in this process for the time of \
            the command, on its database. It never creates one: a directory with no server in \
            it is an error that names it. The admin token is read from the server's \
            directory (its admin-token file).

            With --server URL, the token comes from --token-file or GANGWAY_ADMIN_TOKEN. It \
            is never printed.

            Commands that concern an app take --app ID; without it, the server's only app.

            Exit codes: 0 success, 1 the server refused or could not be reached (the message \
            says why), 64 invalid command line.
            """,
        subcommands: [
            AdminApps.self, AdminUsers.self, AdminAuth.self, AdminSettings.self, AdminPolicy.self,
            AdminSharedDevice.self,
            AdminPasscodeReset.self, AdminAgreements.self, AdminLogs.self,
            AdminDevices.self, AdminMinimumVersion.self, AdminActivation.self, AdminData.self, AdminDestinations.self,
            AdminOperators.self, AdminAudit.self, AdminActivity.self, AdminAttention.self, AdminBackup.self,
            AdminKeys.self,
        ]
    )
}
