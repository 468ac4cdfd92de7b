import Foundation
import GangwayFlows
import GangwayScreens
import GangwayServices
import GangwayStore

/// The commands at the home prompt: what a person does with the app between flows.
struct HomeCommands: Sendable {
    let console: Console
    let manager: SessionManager
    let clock: SimulatedClock
    let home: HomeScreen
    let offline: OfflineCommands
    let crew: CrewCommands
    let services: MobileServices
    let sensor: SimulatedFingerprintSensor
    let permissions: SimulatedPermissions
    let logs: LogCollector

    /// What ends the command loop.
    enum Exit: Sendable, Hashable {
        /// The session ended (logout, removal, an erased store): launch again.
        case reopen
        /// The person quit, or the input ended at the prompt.
        case quit
        /// The input ended in the middle of a command.
        case inputEnded
        /// The person chose the demo at the welcome screen of `add` or `switch`.
        case demo
    }

    /// Whether the person cancelled what a command started (a sign-in left empty).
    private static func isCancellation(_ error: any Error) -> Bool {
        (error as? ServiceFlowError) == .cancelled || (error as? StoreFlowError) == .cancelled
    }

    /// The commands, a line each; their names are the same in every language.
    static var help: String { localized("help") }

    func run() async throws -> Exit {
        while true {
            let line: String
            do {
                line = try await console.askCommand(console.styled("gangway> ", .bold))
            } catch {
                console.line(localized("inputEnded"))
                return .quit
            }
            guard let raw = OfflineCommands.words(line) else {
                console.echo("")
                console.line(localized("home.openQuote"))
                continue
            }
            let command = raw.first?.lowercased() ?? ""
            // A line that names no command is not written back: it may be a passcode a
            // script sent for a prompt that did not come (`resume` within the timeout).
            console.echo(Self.names.contains(command) ? line : "")
            // Kept for Up and Down only when it names a command, for the same reason.
            if Self.names.contains(command) { console.remember(line) }
            guard !command.isEmpty else { continue }
            do {
                if let exit = try await perform(command, arguments: Array(raw.dropFirst())) { return exit }
            } catch {
                switch error {
                case _ where (DeviceApp.cause(of: error) as? PresenterError) == .closed:
                    // The input ended in a screen of the command's flow (`add`, `switch`).
                    if console.quitRequested { return .quit }
                    console.problem(console.styled(localized("inputEndedEarly"), .red))
                    return .inputEnded
                case let error as SecureStoreError where error == .erased:
                    console.line(console.styled(localized("home.erasedAfterTries"), .red))
                    return .reopen
                case is ConsentError:
                    // The session closed, data kept; the observer said why.
                    return .reopen
                case _ where (DeviceApp.cause(of: error) as? ServiceFlowError) == .demoModeChosen:
                    return .demo
                case _ where Self.isCancellation(DeviceApp.cause(of: error)):
                    console.line(localized("home.cancelled"))
                default:
                    console.line(
                        console.styled(localized("home.commandFailed", command, TerminalText.describe(error)), .red)
                    )
                }
            }
            if await manager.session == nil { return .reopen }
        }
    }

    /// Runs one command; returns how the loop ends, or `nil` to keep going.
    /// - Parameter arguments: As typed; commands other than `edit` take them in lower case.
    private func perform(_ command: String, arguments raw: [String]) async throws -> Exit? {
        let arguments = raw.map { $0.lowercased() }
        // In the background the app's screens are hidden and its data locked: nothing of
        // the user's is read, changed or ended before `resume` (and the passcode past the
        // lock timeout). What the device does outside the app (time, its network, its
        // settings app) goes on.
        if case .locked = await manager.state, !Self.whileLocked.contains(command) {
            console.line(localized("home.stillLocked"))
            return nil
        }
        switch command {
        case "edit":
            try await offline.edit(raw)
        case "checks":
            try await offline.checks(raw)
        case "sync":
            try await offline.sync()
            try await home.show()
        case "listen":
            try await offline.listen(arguments)
        case "pending":
            try await offline.pending()
        case "crew":
            try await crew.run(raw)
        case "discard":
            // One number: `discard 1 2` is not the first alone.
            try await offline.discard(arguments.count == 1 ? arguments.first : nil)
        case "offline":
            offline.offline(arguments.first)
        case "help", "?":
            console.line(Self.help)
        case "home", "status":
            try await home.show()
        case "lock", "background":
            // The background flow exchanges the settings: a new policy waits for the
            // resume; a wiped registration erases the user's data now; a session the
            // server no longer takes (a lock, a block, an expiry) closes, data kept.
            let user = await manager.session?.onboardingID
            await manager.enterBackground()
            guard await manager.session != nil else {
                // Erased: the app's observer said why (a wipe).
                if let user, (try? manager.users.registry.user(user)) != nil {
                    // The server no longer takes the session; the data stays.
                    console.line(console.styled(localized("home.sessionClosed"), .yellow))
                }
                return .reopen
            }
            console.line(localized("home.locked"))
        case "resume", "foreground":
            switch try await manager.enterForeground() {
            case .none: console.line(localized("home.notInBackground"))
            case .resume: console.line(localized("home.resumed"))
            case .unlock: console.line(localized("home.unlocked"))
            }
            await offline.handOver()
            try await home.show()
        case "wait":
            // One duration: `wait 5 m` is no duration, rather than five seconds.
            guard arguments.count == 1, let duration = arguments.first.flatMap(Self.duration) else {
                console.line(localized("home.waitHowLong"))
                return nil
            }
            clock.skip(duration)
            console.line(localized("home.timePasses", duration.components.seconds))
        case "switch":
            try await manager.switchUser()
            try await home.show()
        case "add":
            try await manager.addUser()
            try await home.show()
        case "passcode":
            console.line(
                localized(try await manager.changePasscode() ? "home.passcodeChanged" : "home.passcodeUnchanged")
            )
        case "biometrics":
            try await biometrics(arguments.first)
        case "reports":
            try await reports(arguments.first)
        case "permissions":
            try await self.permissions(arguments)
        case "logout" where arguments.first == "server":
            try await manager.logoutFromServer()
            console.line(localized("home.signedOutOnServer"))
        case "logout" where !arguments.isEmpty:
            // A mistyped `logout server` must not close the session.
            console.line(localized("home.logoutWhich"))
        case "logout":
            do {
                try await manager.logout()
            } catch  where (DeviceApp.cause(of: error) as? ServiceError) == .unreachable {
                // A shift ends whether or not the network is there: the person may close the
                // session here, and nothing on the device can use it again.
                console.line(console.styled(localized("home.logoutUnreachable"), .yellow))
                guard try await console.confirm(localized("home.logoutHereQuestion")) else { return nil }
                try await manager.logout(using: services.forgetSession)
                console.line(localized("home.signedOutHere"))
                return .reopen
            }
            console.line(localized("home.signedOut"))
            return .reopen
        case "remove":
            guard try await offline.beforeRemoval(),
                try await console.confirm(localized("home.removeQuestion"))
            else {
                return nil
            }
            try await manager.remove()
            console.line(localized("home.removed"))
            return .reopen
        case "quit", "exit":
            return .quit
        default:
            // The command most likely meant; what was typed is never repeated (it may be
            // a passcode typed at the wrong prompt).
            if let meant = ClosestWord.to(command, among: Self.names.filter { $0 != "?" }.sorted()) {
                console.line(localized("home.didYouMean", meant))
            } else {
                console.line(localized("home.unknownCommand"))
            }
        }
        return nil
    }

    /// Gives or withdraws the usage-reports consent; withdrawn, the user's kept logs go at
    /// once and nothing more is sent.
    private func reports(_ setting: String?) async throws {
        guard let allow = ["on": true, "off": false][setting ?? ""] else {
            console.line(localized("reports.usage"))
            return
        }
        guard let store = await manager.store, let user = await manager.session?.onboardingID else { return }
        let topic = AppTerms.usageReports.topic
        let previous = try ConsentRecord.load(topic: topic, from: store)
        try ConsentRecord(
            version: previous?.version ?? AppTerms.usageReports.version,
            accepted: allow,
            serverVersion: previous?.serverVersion
        ).save(topic: topic, to: store)
        if !allow { logs.discard(user: user) }
        console.line(localized(allow ? "reports.allowed" : "reports.stopped"))
    }

    /// Lists the device's permissions, or plays its settings app: `allow`, `deny` or
    /// `reset` (never asked) a permission.
    private func permissions(_ arguments: [String]) async throws {
        guard let action = arguments.first else {
            let saved = try permissions.saved()
            for permission in Permission.allCases {
                let status = saved[permission] ?? .notDetermined
                console.line(
                    localized(
                        "permissions.row",
                        localized("permissions.\(permission)"),
                        localized("permissions.\(status)")
                    )
                )
            }
            return
        }
        let statuses: [String: PermissionStatus] = ["allow": .granted, "deny": .denied, "reset": .notDetermined]
        guard arguments.count == 2, let status = statuses[action], let permission = Permission(rawValue: arguments[1])
        else {
            console.line(localized("permissions.usage"))
            return
        }
        try permissions.set(permission, to: status)
        console.line(
            localized(
                "permissions.row",
                localized("permissions.\(permission)"),
                localized("permissions.\(status)")
            )
        )
    }

    private func biometrics(_ setting: String?) async throws {
        let action: PasscodeAction
        switch setting {
        case "on": action = .enableBiometrics
        case "off": action = .disableBiometrics
        case "enroll", "enrol":
            guard sensor.isEnrolled else {
                console.line(localized("biometrics.noSensor"))
                return
            }
            try sensor.enrollAnotherFinger()
            console.line(localized("biometrics.enrolled"))
            return
        default:
            console.line(localized("biometrics.usage"))
            return
        }
        guard try await manager.availablePasscodeActions().contains(action) else {
            console.line(localized(action == .enableBiometrics ? "biometrics.unavailable" : "biometrics.notOn"))
            return
        }
        let done = try await manager.perform(action)
        console.line(
            localized(
                done
                    ? (action == .enableBiometrics ? "biometrics.turnedOn" : "biometrics.turnedOff")
                    : "home.nothingChanged"
            )
        )
    }

    /// Every command's name, as ``perform(_:arguments:)`` takes it.
    static let names: Set<String> = [
        "edit", "checks", "sync", "listen", "pending", "crew", "discard", "offline", "help", "?", "home", "status",
        "lock",
        "background",
        "resume", "foreground", "wait", "switch", "add", "passcode", "biometrics", "reports", "permissions", "logout",
        "remove", "quit", "exit",
    ]

    /// The commands a locked app takes: coming back, what the device does outside the
    /// app, and leaving it.
    static let whileLocked: Set<String> = [
        "resume", "foreground", "lock", "background", "wait", "offline", "permissions", "help", "?", "quit", "exit",
    ]

    /// `30`, `30s`, `5m`, `2h`, `1d`; at most ``longestWait`` (so `wait 9999999999999h` is
    /// no duration rather than an overflow).
    static func duration(_ text: String) -> Duration? {
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        let (digits, unit) =
            if let unit = text.last.flatMap({ units[$0] }) { (text.dropLast(), unit) } else { (Substring(text), 1) }
        guard let value = Int64(digits), value >= 0, value <= longestWait / unit else { return nil }
        return .seconds(value * unit)
    }

    /// The longest `wait`: a hundred years, in seconds.
    static let longestWait: Int64 = 100 * 365 * 86400
}
