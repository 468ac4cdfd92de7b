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
    let sensor: SimulatedFingerprintSensor
    let logs: LogCollector

    /// What ends the command loop.
    enum Exit: Sendable, Hashable {
        /// The session ended (logout, removal, an erased store): launch again.
        case reopen
        /// The person quit, or the input ended.
        case quit
    }

    static let help = """
        lock                 send the app to the background (its screens are hidden; it asks the server for news)
        resume               bring it back; the passcode is asked only past the lock timeout
        wait SECONDS         pretend time passes (also 5m, 2h), e.g. before resume
        switch               hand the device to another user (the user picker)
        add                  onboard another user on this device
        passcode             change the passcode
        biometrics on|off    unlock with the simulated fingerprint, where the policy allows
        biometrics enroll    enrol another finger on the simulated sensor (earlier biometric keys stop working)
        reports on|off       allow or stop sending the app's logs to the server (your usage-reports consent)
        logout               sign out on the server and close the session
        remove               remove this user and their data from the device
        edit ID FIELD=VALUE  change a check (or create one, where the app allows): edit F-GKXA-fuel status=done "note=valve ok"
        sync                 send the pending changes now and take in the server's answers
        pending              your pending changes, and those in conflict or refused
        discard N            drop the Nth of 'pending' (never sent, or forgotten)
        offline on|off       behave as if the network were gone (no server contact at all), or not
        home                 show the home screen again, with the checks read from the server
        quit                 leave; the next launch restores the session with its passcode
        """

    func run() async throws -> Exit {
        while true {
            let line: String
            do {
                line = try await console.ask(console.styled("gangway> ", .bold))
            } catch {
                console.line("The input ended; goodbye.")
                return .quit
            }
            let raw = OfflineCommands.words(line)
            guard let command = raw.first?.lowercased() else { continue }
            do {
                if let exit = try await perform(command, arguments: Array(raw.dropFirst())) { return exit }
            } catch {
                switch error {
                case let error as PresenterError where error == .closed:
                    console.line("The input ended; goodbye.")
                    return .quit
                case let error as SecureStoreError where error == .erased:
                    console.line(console.styled("Too many wrong passcodes: this user's data was erased.", .red))
                    return .reopen
                case is ConsentError:
                    // The session closed, data kept; the observer said why.
                    return .reopen
                default:
                    console.line(console.styled("\(command) failed: \(error)", .red))
                }
            }
            if await manager.session == nil { return .reopen }
        }
    }

    /// Runs one command; returns how the loop ends, or `nil` to keep going.
    /// - Parameter arguments: As typed; commands other than `edit` take them in lower case.
    private func perform(_ command: String, arguments raw: [String]) async throws -> Exit? {
        let arguments = raw.map { $0.lowercased() }
        switch command {
        case "edit":
            try await offline.edit(raw)
        case "sync":
            try await offline.sync()
            await home.show()
        case "pending":
            try await offline.pending()
        case "discard":
            try await offline.discard(arguments.first)
        case "offline":
            offline.offline(arguments.first)
        case "help", "?":
            console.line(Self.help)
        case "home", "status":
            await home.show()
        case "lock", "background":
            // The background flow exchanges the settings: a new policy waits for the
            // resume; a wiped registration erases the user's data now; a session the
            // server no longer takes (a lock, a block, an expiry) closes, data kept.
            let user = await manager.session?.onboardingID
            await manager.enterBackground()
            guard await manager.session != nil else {
                if let user, (try? manager.users.registry.user(user)) != nil {
                    // The server no longer takes the session; the data stays.
                    console.line(console.styled("The session is closed; sign in again to go on.", .yellow))
                } else {
                    console.line(
                        console.styled(
                            "The server wiped this device's registration: this user's data was erased.",
                            .red
                        )
                    )
                }
                return .reopen
            }
            console.line("Locked. Type 'resume' to come back.")
        case "resume", "foreground":
            switch try await manager.enterForeground() {
            case .none: console.line("The app was not in the background.")
            case .resume: console.line("Resumed within the lock timeout: no passcode needed.")
            case .unlock: console.line("Unlocked.")
            }
            await offline.handOver()
            await home.show()
        case "wait":
            guard let duration = arguments.first.flatMap(Self.duration) else {
                console.line("Say how long: wait 30, wait 5m, wait 2h.")
                return nil
            }
            clock.skip(duration)
            console.line("(\(duration.components.seconds) s pass)")
        case "switch":
            try await manager.switchUser()
            await offline.handOver()
            await home.show()
        case "add":
            try await manager.addUser()
            await offline.handOver()
            await home.show()
        case "passcode":
            console.line(try await manager.changePasscode() ? "The passcode changed." : "The passcode did not change.")
        case "biometrics":
            try await biometrics(arguments.first)
        case "reports":
            try await reports(arguments.first)
        case "logout":
            try await manager.logout()
            console.line("Signed out.")
            return .reopen
        case "remove":
            guard try await offline.beforeRemoval(),
                try await console.confirm("Remove this user and erase their data from the device?")
            else {
                return nil
            }
            try await manager.remove()
            console.line("The user was removed.")
            return .reopen
        case "quit", "exit":
            return .quit
        default:
            console.line("Unknown command '\(command)'; 'help' lists the commands.")
        }
        return nil
    }

    /// Gives or withdraws the usage-reports consent; withdrawn, the user's kept logs go at
    /// once and nothing more is sent.
    private func reports(_ setting: String?) async throws {
        guard let allow = ["on": true, "off": false][setting ?? ""] else {
            console.line("Say 'reports on' or 'reports off'.")
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
        console.line(allow ? "Usage reports allowed." : "Usage reports stopped; the logs kept for them are gone.")
    }

    private func biometrics(_ setting: String?) async throws {
        let action: PasscodeAction
        switch setting {
        case "on": action = .enableBiometrics
        case "off": action = .disableBiometrics
        case "enroll", "enrol":
            guard sensor.isEnrolled else {
                console.line("The device has no fingerprint sensor (start the app with --biometrics).")
                return
            }
            try sensor.enrollAnotherFinger()
            console.line(
                "Another finger was enrolled on the sensor (simulated): biometric keys made before no longer open."
            )
            return
        default:
            console.line("Say 'biometrics on', 'biometrics off' or 'biometrics enroll'.")
            return
        }
        guard try await manager.availablePasscodeActions().contains(action) else {
            console.line(
                action == .enableBiometrics
                    ? "Biometric unlock is not available: it is on already, the policy forbids it, or the device is shared (biometrics need --personal-device --biometrics)."
                    : "Biometric unlock is not on."
            )
            return
        }
        let done = try await manager.perform(action)
        console.line(done ? "Biometric unlock is \(setting ?? "")." : "Nothing changed.")
    }

    /// `30`, `30s`, `5m`, `2h`, `1d`.
    static func duration(_ text: String) -> Duration? {
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        if let unit = text.last.flatMap({ units[$0] }), let value = Int64(text.dropLast()), value >= 0 {
            return .seconds(value * unit)
        }
        return Int64(text).flatMap { $0 >= 0 ? .seconds($0) : nil }
    }
}
