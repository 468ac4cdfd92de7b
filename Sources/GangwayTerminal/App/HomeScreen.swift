import Foundation
import GangwayFlows
import GangwayOffline
import GangwayPolicy
import GangwayScreens
import GangwayServices
import GangwayStore

/// The screen a person sees once the session is open: who is signed in, the device,
/// the server and its last contact, the passcode policy in force, and the aircraft
/// checks the app serves (read from the server each time, or the copy kept offline).
struct HomeScreen: Sendable {
    let console: Console
    let manager: SessionManager
    let registry: UserRegistry
    let serverURL: URL
    let data: AppDataReader
    let work: OfflineWork
    let network: NetworkSwitch

    func show() async {
        guard let session = await manager.session else {
            console.line("No one is signed in.")
            return
        }
        let context = await manager.flowContext
        let localUser = try? registry.user(session.onboardingID)
        let account = context.flatMap { try? ServiceAccount(reading: $0.credentials) }
        console.heading(context?.info[.appConfiguration]?.appName ?? "Home")
        if let user = account?.user {
            console.line("Signed in:      \(user.displayName) (\(user.id))")
        } else {
            console.line("Signed in:      \(localUser?.displayName ?? "a local user")")
        }
        let users = (try? registry.users()) ?? []
        if users.count > 1 {
            console.line("On this device: \(users.map(\.displayName).joined(separator: ", "))")
        }
        if let registration = context?.info[.deviceRegistration] {
            console.line("Registration:   \(registration.registrationID) (device \(registration.deviceID))")
        }
        let contact = account?.lastContact.map { Self.format($0) } ?? "never"
        let offline = network.isOffline ? " (offline: 'offline off' to reconnect)" : ""
        console.line("Server:         \(serverURL.absoluteString), last contact \(contact)\(offline)")
        if let store = await manager.store {
            console.line("Passcode:       \(Self.describe(store.policy, protected: store.isPasscodeProtected))")
            console.line("Biometrics:     \(store.isBiometricUnlockEnabled ? "on" : "off")")
            console.line(
                "Usage reports:  \(Self.reports(allowed: Self.reportsAllowed(in: store), settings: account?.settings))"
            )
            if let terms = try? TermsAcceptance.load(from: store) {
                let documents = terms.documents.map { "\($0.title) \($0.version)" }.joined(separator: ", ")
                console.line("Terms accepted: \(documents), \(Self.format(terms.acceptedAt))")
            }
        }
        if let context { await showChecks(context) }
        console.line(
            console.styled(
                "Commands: edit, sync, pending, offline, lock, resume, wait, switch, add, passcode, biometrics, reports, logout, remove, quit, help",
                .dim
            )
        )
    }

    /// The checks, fresh from the server or as kept, and why they are not fresh.
    private func showChecks(_ context: FlowContext) async {
        let reading: AppDataReading
        do {
            reading = try await data.read(ChecksText.entitySet, in: context)
        } catch {
            console.line(console.styled("Checks:         cannot be read on this device (\(error))", .red))
            return
        }
        let shown =
            (try? work.view(reading.entities, of: ChecksText.entitySet, in: context))
            ?? reading.entities.map { .init(entity: $0, pending: false, needsAttention: false) }
        let count = shown.count
        let what = count == 0 ? "none" : count == 1 ? "1 check" : "\(count) checks"
        let when = reading.fetchedAt.map(Self.format)
        let editable = (try? work.canEdit(ChecksText.entitySet, in: context)) == true ? "" : " (read-only)"
        switch (reading.failure, when) {
        case (nil, _):
            console.line("Checks:         \(what) from the server\(editable)")
        case (let failure?, let when?):
            console.line("Checks:         \(what) kept from \(when)\(editable)")
            console.line(console.styled("                not refreshed: \(failure.summary)", .yellow))
        case (let failure?, nil) where shown.isEmpty:
            console.line("Checks:         none kept on this device")
            console.line(console.styled("                not read: \(failure.summary)", .yellow))
        case (let failure?, nil):
            console.line("Checks:         \(what), made on this device")
            console.line(console.styled("                not read: \(failure.summary)", .yellow))
        }
        if let waiting = try? work.waiting(in: context), waiting.own + waiting.others > 0 {
            var parts = ["\(OfflineCommands.count(waiting.own)) of yours"]
            if waiting.others > 0 { parts.append("\(waiting.others) of other users") }
            console.line("Pending:        \(parts.joined(separator: ", ")) waiting for the server ('pending', 'sync')")
        }
        let attention = shown.filter(\.needsAttention).count
        if attention > 0 {
            console.line(console.styled("                \(attention) checks need a look: 'pending' says why", .yellow))
        }
        for line in ChecksText.lines(shown) { console.line("  \(line)") }
    }

    /// Whether the person allows usage reports (their consent's last answer).
    static func reportsAllowed(in store: any CredentialStore) -> Bool {
        (try? ConsentRecord.load(topic: AppTerms.usageReports.topic, from: store))??.accepted == true
    }

    /// What happens to the app's logs, as the home screen says it.
    static func reports(allowed: Bool, settings: ServerSettings?) -> String {
        guard allowed else { return "not sent ('reports on' to allow)" }
        guard let settings, settings.logUploadEnabled else { return "allowed; the server takes none now" }
        return "sent to the server (\(settings.logLevel) and above, at most every "
            + "\(settings.logUploadInterval.components.seconds) s; 'reports off' to stop)"
    }

    static func describe(_ policy: PasscodePolicy?, protected: Bool) -> String {
        guard let policy, protected else { return "none" }
        return PolicyText.describe(policy)
    }

    static func format(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return formatter.string(from: date)
    }
}
