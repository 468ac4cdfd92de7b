import Foundation
import GangwayFlows
import GangwayScreens
import GangwayServices
import GangwayStore
import GangwaySystem
import Logging
import Synchronization

/// The device app `gangway` runs: the onboarding story against the embedded server (or
/// `--server`), the home screen, and the commands a person uses in between.
public struct DeviceApp: Sendable {
    let options: DeviceAppOptions
    let console: Console
    let logger: Logger
    /// What serves when no `--server` is given.
    let embeddedServer: EmbeddedServerOpening

    public init(options: DeviceAppOptions, console: Console, embeddedServer: @escaping EmbeddedServerOpening) {
        self.options = options
        self.console = console
        self.embeddedServer = embeddedServer
        logger = Self.standardErrorLogger(label: "gangway.app", default: .error)
    }

    /// A logger to standard error at `GANGWAY_LOG_LEVEL`, or at `level` without it.
    public static func standardErrorLogger(label: String, default level: Logger.Level) -> Logger {
        var logger = Logger(label: label) { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = LogLevelVariable.level ?? level
        return logger
    }

    /// The device's logger: to standard error as ``standardErrorLogger(label:default:)``
    /// does, and into `collector` (at the level it keeps) for the uploads people allow.
    static func appLogger(collector: LogCollector) -> Logger {
        let stream = standardErrorLogger(label: "gangway.app", default: .error).logLevel
        // Each handler keeps its own level (the collector's filters by the server's): the
        // logger's own would set both.
        return Logger(label: "gangway.app") { label in
            var standardError = StreamLogHandler.standardError(label: label)
            standardError.logLevel = stream
            return MultiplexLogHandler([standardError, collector.handler(label: label)])
        }
    }

    /// The input ended in the middle of a screen or a command (not at the home prompt,
    /// where it ends the app as `quit` does): a script that runs out before its story is
    /// done fails. The app said so in a line already.
    public struct InputEndedEarly: Error, Hashable, Sendable {}

    /// Runs until the person quits or the input ends.
    /// - Throws: ``InputEndedEarly`` when the input ended before the story was done.
    public func run() async throws {
        Interruption.install()
        StringTable.use(TerminalText.table)
        // One app per device directory: a second would share its stores and outbox.
        let hold = try DirectoryLock(options.deviceDirectory, holder: "gangway, the device app")
        do {
            try await launch()
            hold.release()
        } catch {
            // A launch that failed leaves no lock of its own behind (another process's is
            // never touched), nor the empty directories made for it.
            hold.releaseRemovingWhatItMade()
            throw error
        }
    }

    /// The app on the held device directory: against `--server`, or the embedded server.
    private func launch() async throws {
        if let serverURL = options.serverURL {
            let moved = try await DeviceSetup.follow(
                server: serverURL,
                pinnedKeyPEM: DeviceSetup.pinnedActivationKey(in: options.deviceDirectory),
                store: configurationStore
            )
            let key: String
            do {
                key = try await DeviceSetup.activationKey(
                    from: serverURL,
                    directory: options.deviceDirectory,
                    activated: (try? configurationStore.load()) != nil
                )
            } catch let error as ServiceError where error == .notFound || error == .invalidResponse {
                // Something answers there, and it is not a Gangway server's base address.
                throw NotAServer(given: serverURL)
            }
            console.line(localized("banner.remote", serverURL.absoluteString))
            if let moved { console.line("  " + localized("banner.serverMoved", moved.absoluteString)) }
            try await play(serverURL: serverURL, activationKeyPEM: key)
            return
        }
        let server = try await embeddedServer(
            options.serverDirectory,
            options.bcryptCost,
            logger,
            "gangway, the device app's server"
        )
        try await server.serving { url in
            printBanner(serverURL: url, demo: server.isDemo)
            if let taken = server.keptPortTaken, taken != url.port {
                console.line("  " + localized("banner.portTaken", taken))
            }
            try DeviceSetup.followEmbeddedServer(to: url, store: configurationStore)
            try await play(serverURL: url, activationKeyPEM: try await server.activationKeyPEM())
        }
    }

    private func printBanner(serverURL: URL, demo: Bool) {
        console.line(console.styled("Gangway", .bold) + " · " + localized("banner.embedded"))
        console.line("  " + localized("banner.server", serverURL.absoluteString, options.serverDirectory.path))
        guard demo else {
            console.line("  " + localized("banner.notDemo"))
            return
        }
        console.line("  " + localized("banner.demoApp", DemoApp.appName, DemoApp.emailDomain))
        let users = DemoApp.users.map { "\($0.username) / \($0.password)" }.joined(separator: ", ")
        console.line("  " + localized("banner.demoUsers", users))
        console.line("  " + localized("banner.help"))
    }

    var configurationStore: ConfigurationStore {
        ConfigurationStore(file: options.deviceDirectory.appendingPathComponent("configuration.json"))
    }

    /// Launch, then the home screen's commands, until quit.
    private func play(serverURL: URL, activationKeyPEM: String) async throws {
        let clock = SimulatedClock()
        let device = try DeviceSetup(options: options, console: console, logs: LogCollector(), clock: clock)
        let services = try device.services(
            serverURL: serverURL,
            activationKeyPEM: activationKeyPEM,
            configurationStore: configurationStore
        )
        let work = OfflineWork(
            services: services,
            outbox: try device.outbox(),
            shared: device.sharedData,
            uploadBatchSize: options.uploadBatchSize
        )
        let manager = try device.sessionManager(services: services, work: work)
        let offline = OfflineCommands(
            console: console,
            manager: manager,
            work: work,
            network: device.network,
            local: try LocalEntityStore()
        )
        // The network switch works at every choice too (the user picker, the welcome
        // screen), not only at the home prompt.
        let network = device.network
        console.takeAtEveryChoice { answer in
            let words = answer.split(separator: " ").map(String.init)
            guard words.count == 2, words[0] == "offline", ["on", "off"].contains(words[1]) else { return nil }
            return OfflineCommands.offline(words[1], network: network)
        }
        let home = HomeScreen(
            console: console,
            manager: manager,
            registry: device.registry,
            serverURL: serverURL,
            deviceID: services.device.deviceID,
            data: work.reader,
            work: work,
            network: device.network
        )
        let commands = HomeCommands(
            console: console,
            manager: manager,
            clock: clock,
            home: home,
            offline: offline,
            crew: CrewCommands(console: console, manager: manager, services: services, network: device.network),
            services: services,
            sensor: device.sensor,
            permissions: device.permissions,
            logs: device.logs
        )
        // A launch can erase a user (a wiped registration, too long out of contact, a
        // store gone): the person is told why, as the welcome screen asks them to start
        // over. A wipe noticed in the background says why too.
        let erasing = Mutex(false)
        let told = Mutex(false)
        let console = console
        let (registry, shared) = (device.registry, device.sharedData)
        await manager.addObserver { event in
            switch event {
            case .userWiped(_, let reason) where !reason.isEmpty:
                told.withLock { $0 = true }
                console.line(console.styled(reason, .red))
            case .userRemoved:
                let explained = told.withLock { told in
                    defer { told = false }
                    return told
                }
                if erasing.withLock({ $0 }), !explained {
                    console.line(console.styled(localized("launch.erased"), .yellow))
                }
                // The app's data is the device's while it has a user, and goes with the last.
                if (try? registry.users().isEmpty) == true { try? shared.erase() }
            case .sessionEnded(_, let reason):
                console.line(console.styled(reason, .yellow))
            default:
                break
            }
        }
        while true {
            erasing.withLock { $0 = true }
            let opening = await open(manager)
            erasing.withLock { $0 = false }
            switch opening {
            case .opened:
                // What waited on the device went in the flow (OfflineHandOverStep).
                do {
                    try await home.show()
                } catch {
                    // The input ended in a screen the home screen's server read brought.
                    if console.quitRequested { return }
                    throw InputEndedEarly()
                }
                switch try await commands.run() {
                case .quit: return
                case .inputEnded: throw InputEndedEarly()
                case .reopen: continue
                case .demo:
                    switch await demoMode() {
                    case .quit: return
                    case .inputEnded: throw InputEndedEarly()
                    case .failed: throw LaunchFailed()
                    case .opened, .again: continue
                    }
                }
            case .again:
                continue
            case .quit:
                return
            case .inputEnded:
                throw InputEndedEarly()
            case .failed:
                throw LaunchFailed()
            }
        }
    }

    /// The app could not open and the person left it there: a failure, which the app
    /// said on its screen.
    public struct LaunchFailed: Error, Hashable, Sendable {}

    /// `--server` names another server than the one the device was activated against (it
    /// signs activations with another key): nothing of the device's is sent to it.
    public struct OtherServer: Error, Hashable, Sendable, CustomStringConvertible {
        public let activatedAgainst: URL
        public let given: URL

        public var description: String {
            localized("otherServer", activatedAgainst.absoluteString, given.absoluteString)
        }
    }

    /// `--server` names an address where something answers that is not a Gangway server's
    /// base address (a path after it, another web server).
    public struct NotAServer: Error, Hashable, Sendable, CustomStringConvertible {
        public let given: URL

        public var description: String { localized("notAServer", given.absoluteString) }
    }

    private enum Opening { case opened, again, quit, inputEnded, failed }

    /// Launch: onboarding or restore. Demo mode, a cancel and failures are shown here.
    private func open(_ manager: SessionManager) async -> Opening {
        do {
            try await manager.open()
            return .opened
        } catch {
            switch Self.cause(of: error) {
            case let error as PresenterError:
                guard error == .closed else {
                    console.line(localized("launch.screenFailed", error))
                    return .failed
                }
                if console.quitRequested { return .quit }
                console.problem(console.styled(localized("inputEndedEarly"), .red))
                return .inputEnded
            case let error as ServiceFlowError where error == .demoModeChosen:
                return await demoMode()
            case let error as ServiceFlowError:
                console.line(console.styled(error.message, .yellow))
                return .again
            case let declined as ConsentError:
                if case .restore? = (error as? FlowError)?.flowType {
                    console.line(console.styled(localized("launch.declinedAtRestore", declined.message), .yellow))
                } else {
                    console.line(console.styled(localized("launch.declinedAtOnboarding", declined.message), .yellow))
                }
                return .again
            default:
                console.line(console.styled(localized("launch.failed", TerminalText.describe(error)), .red))
                do {
                    return try await afterFailedLaunch(of: error, manager)
                } catch {
                    if console.quitRequested { return .quit }
                    console.problem(console.styled(localized("inputEndedEarly"), .red))
                    return .inputEnded
                }
            }
        }
    }

    /// The error a flow stopped on, out of the flow's wrapping.
    static func cause(of error: any Error) -> any Error {
        var current = error
        while let flow = current as? FlowError, let underlying = flow.underlying { current = underlying }
        return current
    }

    /// What the person does after a launch failed: try again, or quit; when a user's
    /// restore failed, also remove that user from the device (a restore that keeps
    /// failing must not leave the device stuck with them).
    private func afterFailedLaunch(
        of error: any Error,
        _ manager: SessionManager
    ) async throws(PresenterError) -> Opening {
        enum Next: Sendable { case again, remove(UUID), quit }
        var options = [ChoiceOption(localized("launch.tryAgain"), words: ["again", "retry"], Next.again)]
        if case .restore(let id)? = (error as? FlowError)?.flowType,
            let user = try? manager.users.registry.user(id)
        {
            options.append(
                ChoiceOption(localized("launch.removeUser", user.displayName), words: ["remove"], .remove(id))
            )
        }
        options.append(ChoiceOption(localized("launch.quit"), words: ["quit"], .quit))
        switch try await console.choose(options) {
        case .again: return .again
        case .quit: return .failed
        case .remove(let id):
            console.line(localized("launch.removeKeepsOutbox"))
            guard try await console.confirm(localized("home.removeQuestion")) else { return .again }
            do {
                // The app's observer says the data went.
                try await manager.remove(user: id)
            } catch {
                console.line(console.styled(localized("launch.failed", TerminalText.describe(error)), .red))
            }
            return .again
        }
    }

    /// Demo mode: a look at the app with sample data, no server and nothing kept.
    private func demoMode() async -> Opening {
        console.heading(localized("demo.title"))
        console.line(localized("demo.detail"))
        console.line(localized("demo.checks"))
        for line in ChecksText.lines(DemoApp.sampleChecks(at: WallClock.now())) { console.line("  \(line)") }
        do {
            let back = try await console.choose([
                ChoiceOption(localized("demo.back"), words: ["back", "welcome"], true),
                ChoiceOption(localized("demo.quit"), words: ["quit"], false),
            ])
            return back ? .again : .quit
        } catch {
            if console.quitRequested { return .quit }
            console.problem(console.styled(localized("inputEndedEarly"), .red))
            return .inputEnded
        }
    }
}
